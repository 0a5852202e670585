import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStandardHeaders } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';
import { BINARY_BODY } from './support/upstream.ts';

let h: Harness;
let a: Awaited<ReturnType<Harness['account']>>;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  a = await h.account();
});
afterAll(async () => {
  await h?.close();
});

const bytes = (req: request.Test) =>
  req.buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('answers that are not JSON', () => {
  it('pass through the gateway byte for byte, with their content type and the edge headers', async () => {
    const res = await bytes(request(h.app).get('/v1/esim/esim_x/qr_code').set(bearer(a.test)));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers.vary).toBe('Accept');
    expect(Buffer.compare(res.body as Buffer, BINARY_BODY)).toBe(0);
    expect(Number(res.headers['content-length'])).toBe(BINARY_BODY.length);
    expectStandardHeaders(res);
  });

  it('get the caller’s Accept passed on; JSON routes do not', async () => {
    const res = await bytes(request(h.app).get('/v1/esim/esim_x/qr_code').set(bearer(a.test)).set('Accept', 'image/svg+xml'));
    expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect((res.body as Buffer).toString('utf8')).toBe('<svg xmlns="http://www.w3.org/2000/svg"/>');
    expect(h.upstream.seen.at(-1)?.headers.accept).toBe('image/svg+xml');

    await request(h.app).get('/v1/esim/esim_x').set(bearer(a.test)).set('Accept', 'image/svg+xml').expect(200);
    expect(h.upstream.seen.at(-1)?.headers.accept).toBe('application/json');
  });
});
