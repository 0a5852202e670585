import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, listen } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './support/harness.ts';
import { rawClient } from './support/raw-socket.ts';

let h: Harness;
let server: Server;
let port: number;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '1000000' });
  server = await listen(h.app, 0, '127.0.0.1');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  if (server) await closeServer(server, 1_000);
  await h?.close();
});

/** Sends `head` as raw bytes (UTF-8 unless given), as a fuzzer does: supertest refuses such headers. */
async function send(head: string | Buffer) {
  const client = await rawClient(port);
  client.write(typeof head === 'string' ? Buffer.from(head, 'utf8') : head);
  const answer = await client.answer(3_000);
  client.close();
  return answer;
}

describe('non-ASCII bytes in the request', () => {
  it.each([
    ['HEAD', 'utf8'],
    ['HEAD', 'latin1'],
    ['GET', 'utf8'],
    ['POST', 'utf8'],
  ] as const)('%s with a raw non-ASCII path and Idempotency-Key (%s bytes): the error object, not a dropped connection', async (method, encoding) => {
    const a = await h.account();
    const head = [
      `${method} /v1/webhooks/esim_ü HTTP/1.1`,
      'Host: localhost',
      'Connection: close',
      `Authorization: Bearer ${a.test}`,
      'Idempotency-Key: ðððð',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n');
    const answer = await send(Buffer.from(head, encoding));
    // Node's parser refuses the raw bytes in the path: the error object, then the connection closes.
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(400);
    expect(answer.headers['request-id']).toMatch(/^req_/);
    expect(answer.headers['content-type']).toMatch(/application\/json/);
    expect(Number(answer.headers['content-length'])).toBeGreaterThan(0);
    if (method === 'HEAD') {
      // The status and headers alone: a body would be read as the next answer.
      expect(answer.body).toBe('');
    } else {
      expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('invalid_parameter');
    }
  });

  it.each([
    ['HEAD', 'utf8'],
    ['HEAD', 'latin1'],
    ['GET', 'utf8'],
    ['DELETE', 'latin1'],
  ] as const)('%s with a percent-encoded path and a raw non-ASCII Idempotency-Key (%s bytes): answered, HEAD without a body', async (method, encoding) => {
    // The key is not read on a read: GET goes on, HEAD is an unknown route; the DELETE is refused for its key.
    const a = await h.account();
    const head = [
      `${method} /v1/${method === 'DELETE' ? 'webhooks' : 'esim'}/esim_%C3%BC HTTP/1.1`,
      'Host: localhost',
      'Connection: close',
      `Authorization: Bearer ${a.test}`,
      'Idempotency-Key: ðððð',
      '',
      '',
    ].join('\r\n');
    const answer = await send(Buffer.from(head, encoding));
    expect(answer.closed).toBe(true);
    expect(answer.headers['request-id']).toMatch(/^req_/);
    if (method === 'DELETE') {
      expect(answer.status).toBe(400);
      expect((JSON.parse(answer.body) as { error: { code: string; param: string } }).error).toMatchObject({
        code: 'invalid_parameter',
        param: 'Idempotency-Key',
      });
    } else if (method === 'HEAD') {
      // No route answers HEAD: the 404 of any unknown route, its status and headers alone.
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toMatch(/application\/json/);
      expect(answer.body).toBe('');
    } else {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ object: 'esim', id: 'esim_ü' });
    }
  });

  it.each(['utf8', 'latin1'] as const)(
    'a non-ASCII Idempotency-Key on a valid order (%s bytes) is 400 invalid_parameter, nothing ordered',
    async (encoding) => {
      const a = await h.account();
      const before = h.upstream.orders();
      const body = JSON.stringify({ bundle: 'esim_1GB_7D_GB' });
      const head = [
        'POST /v1/esim HTTP/1.1',
        'Host: localhost',
        'Connection: close',
        `Authorization: Bearer ${a.test}`,
        'Idempotency-Key: ðððððððð',
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        body,
      ].join('\r\n');
      const answer = await send(Buffer.from(head, encoding));
      expect(h.upstream.orders() - before).toBe(0);
      expect(answer.status).toBe(400);
      const refused = JSON.parse(answer.body) as { error: { code: string; param?: string } };
      expect(refused.error).toMatchObject({ code: 'invalid_parameter', param: 'Idempotency-Key' });
    },
  );
});
