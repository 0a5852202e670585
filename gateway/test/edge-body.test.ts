import { MAX_BODY_BYTES } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyReads } from '../src/domain/body-reads.ts';
import { parseJsonObject, readBody } from '../src/edge/body.ts';
import { identityOf, runStep } from './support/edge-step.ts';
import { startHarness, type Harness } from './support/harness.ts';

/** Step 6 alone: the body read within its deadline and the key's cap, then parsed as a JSON object. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const parse = (text: string) => parseJsonObject(Buffer.from(text));

describe('the body step', () => {
  it('a JSON object is the body; no body (or only white space) is none', () => {
    expect(parse('{"bundle":"b","quantity":2}')).toEqual({ bundle: 'b', quantity: 2 });
    expect(parse('')).toBeUndefined();
    expect(parse(' \n')).toBeUndefined();
  });

  it('JSON that is not an object, or not JSON at all, is 400 body_not_json', () => {
    for (const text of ['[1,2]', '"text"', 'null', '42', '{"unterminated"']) {
      expect(() => parse(text), text).toThrowError(expect.objectContaining({ code: 'body_not_json', status: 400 }));
    }
  });

  it('reads the body as its bytes came, as one of the key’s reads', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const deps = { edge: h.edge, bodyDeadline: { ms: 5_000 } };
    const { value, error } = await runStep(
      (req, res) => readBody(deps, req, res, identity),
      (client) => client.post('/v1/esim').set('Content-Type', 'application/json').send('{ "bundle" : "b" }'),
    );
    expect(error).toBeUndefined();
    expect(value?.toString()).toBe('{ "bundle" : "b" }');
    expect(h.edge.bodyReads.count(identity.keyId)).toBe(0);
  });

  it('a body over 1 MiB is 400 invalid_parameter (param body)', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const { error } = await runStep(
      (req, res) => readBody({ edge: h.edge, bodyDeadline: { ms: 5_000 } }, req, res, identity),
      (client) =>
        client
          .post('/v1/esim')
          .set('Content-Type', 'application/json')
          .send(`{"a":"${'x'.repeat(MAX_BODY_BYTES)}"}`),
    );
    expect(error?.code).toBe('invalid_parameter');
    expect(error?.param).toBe('body');
  });

  it('a key at its cap of bodies being read is 429 rate_limited, with Retry-After, and the connection closes', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const deps = { edge: { ...h.edge, bodyReads: new BodyReads(0) }, bodyDeadline: { ms: 5_000 } };
    const { error, response } = await runStep(
      (req, res) => readBody(deps, req, res, identity),
      (client) => client.post('/v1/esim').set('Content-Type', 'application/json').send('{}'),
    );
    expect(error?.code).toBe('rate_limited');
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers.connection).toBe('close');
  });
});
