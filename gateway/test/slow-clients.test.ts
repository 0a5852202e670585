import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer, listen } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, idem, startHarness, type Harness } from './support/harness.ts';
import { rawClient } from './support/raw-socket.ts';

// Short deadlines so the test runs in seconds; the defaults are 10 s (record 0201).
const BODY_MS = 1_000;
const HEADERS_MS = 1_000;

let h: Harness;
let server: Server;
let port: number;
beforeAll(async () => {
  h = await startHarness({
    RATE_LIMIT_PER_MINUTE: '1000000',
    REQUEST_BODY_TIMEOUT_MS: String(BODY_MS),
    REQUEST_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
    BODY_READS_PER_KEY: '2',
  });
  // The real listener (supertest makes its own server, without the gateway's deadlines).
  server = await listen(h.app, 0, '127.0.0.1');
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  if (server) await closeServer(server, 1_000);
  await h?.close();
});

const BODY = JSON.stringify({ bundle: 'esim_1GB_7D_GB' });
const orderHead = (key: string, length = BODY.length) =>
  [
    'POST /v1/esim HTTP/1.1',
    'Host: localhost',
    `Authorization: Bearer ${key}`,
    `Idempotency-Key: ${idem()}`,
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');

/** Starts an order whose body comes one byte every 200 ms (it would take seconds). */
async function trickledOrder(key: string) {
  const client = await rawClient(port);
  client.write(orderHead(key));
  client.trickle(BODY, 200);
  return client;
}

describe('a body that does not arrive in time', () => {
  it('is answered 408 request_timeout with the error object at the deadline, and the connection is closed', async () => {
    const a = await h.account();
    const before = h.upstream.orders();
    const client = await trickledOrder(a.test);
    const answer = await client.answer(BODY_MS + 5_000);
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(408);
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['request-id']).toMatch(/^req_/);
    const body = JSON.parse(answer.body) as { error: { code: string; type: string; message: string; link: string } };
    expect(body.error).toMatchObject({ code: 'request_timeout', type: 'invalid_request' });
    expect(body.error.message).toMatch(/1 s/);
    // At the deadline, not when the body would have ended (32 bytes at 5 a second: 6 s).
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(BODY_MS - 50);
    expect(answer.elapsedMs).toBeLessThan(BODY_MS + 2_500);
    expect(h.upstream.orders() - before).toBe(0);
  });

  it('headers that do not arrive in time: 408 request_timeout, connection closed', async () => {
    const client = await rawClient(port);
    client.write('GET /v1/esim HTTP/1.1\r\nHost: localhost\r\n');
    client.trickle('X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n', 200);
    const answer = await client.answer(HEADERS_MS + 5_000);
    expect(answer.closed).toBe(true);
    expect(answer.status).toBe(408);
    expect((JSON.parse(answer.body) as { error: { code: string } }).error.code).toBe('request_timeout');
    // Node checks its deadlines each second here, not every 30 s.
    expect(answer.elapsedMs).toBeLessThan(HEADERS_MS + 2_500);
  });

  it('a body sent at once is unaffected', async () => {
    const a = await h.account();
    const client = await rawClient(port);
    client.write(orderHead(a.test) + BODY);
    const answer = await client.answer(15_000);
    expect(answer.status).toBe(201);
    client.close();
  });
});

describe('concurrent body reads per key', () => {
  it("past BODY_READS_PER_KEY, the key's next body is refused at once (429 rate_limited, Retry-After); other keys go on; the cap frees at the deadline", async () => {
    const a = await h.account();
    const b = await h.account();
    const slow = [await trickledOrder(a.test), await trickledOrder(a.test)];
    // Both reads under way.
    const deadline = Date.now() + 2_000;
    while (h.edge.bodyReads.count(a.testKeyId) < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(h.edge.bodyReads.count(a.testKeyId)).toBe(2);

    const third = await rawClient(port);
    third.write(orderHead(a.test));
    third.trickle(BODY, 200);
    const refused = await third.answer(BODY_MS / 2);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect((JSON.parse(refused.body) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/2 request bodies/),
    });
    third.close();

    const other = await request(h.app).post('/v1/esim').set(bearer(b.test)).set('Idempotency-Key', idem()).send({ bundle: 'esim_1GB_7D_GB' });
    expect(other.status).toBe(201);

    for (const client of slow) expect((await client.answer(BODY_MS + 5_000)).status).toBe(408);
    expect(h.edge.bodyReads.count(a.testKeyId)).toBe(0);
    const after = await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', idem()).send({ bundle: 'esim_1GB_7D_GB' });
    expect(after.status).toBe(201);
  });
});
