import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, internalContract, internalSupplyContract } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import express from 'express';
import request from 'supertest';
import { createInternalClient, createLogger, encodePathSegment, errorHandler, pathFor, UpstreamFailure } from '../src/index.ts';

/** A real HTTP server that records the raw request line and answers with what it is told. */
let server: Server;
let baseUrl: string;
const seen: { method: string; url: string; headers: IncomingMessage['headers'] }[] = [];
let answer: { status: number; body: string | Buffer; type?: string; headers?: Record<string, string> } = { status: 200, body: '{}' };

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': answer.type ?? 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = () => createInternalClient({ service: 'catalogue', baseUrl, internalToken: 'a-token-of-enough-length', timeoutMs: 2_000 });
const caller = { accountId: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz', environment: 'test' as const, keyId: 'key_01jd8x7k2m9q4r5s6t7v8w9xyz' };

// Values an attacker may put where a path parameter goes: traversal, `%`, `?`, `#`, `/`, and encoded variants.
const HOSTILE = [
  '../accounts/acct_01jd8x7k2m9q4r5s6t7v8w9xyz/live-ordering?',
  '..',
  '.',
  '%',
  '%2e%2e',
  '%2F',
  'a/b',
  'a?b=c',
  'a#b',
  'esim_5GB_30D_EU/../esim_5GB_30D_EU',
  '..%2F..%2Finternal',
  'x\u0000y',
  ' ',
];

describe('path parameters', () => {
  test('each becomes exactly one encoded segment; dot segments too', () => {
    for (const value of HOSTILE) {
      const path = pathFor('/internal/bundles/:name', { name: value });
      expect(path.split('/')).toHaveLength(4);
      expect(decodeURIComponent(path.split('/')[3] ?? '')).toBe(value);
      expect(path).not.toMatch(/[?#]/);
    }
    expect(encodePathSegment('..')).toBe('%2E%2E');
    expect(encodePathSegment('.')).toBe('%2E');
  });

  test('a value the route does not declare never becomes part of a URL: it is refused before sending', async () => {
    const before = seen.length;
    for (const name of HOSTILE) {
      const call = client().call(internalContract.catalogue.getBundle, { params: { name }, caller });
      await expect(call).rejects.toMatchObject({ name: 'ApiError', code: 'invalid_parameter', param: 'name' });
    }
    for (const iccid of ['../../orders', '8988200000000000000/../x', '%2e%2e']) {
      const call = client().call(internalSupplyContract.terminateProfile, { params: { iccid }, body: {}, caller });
      await expect(call).rejects.toMatchObject({ code: 'invalid_parameter', param: 'iccid' });
    }
    expect(seen.length).toBe(before);
  });

  test('a declared value is sent on the route it names, with the token, the identity and a request id', async () => {
    answer = { status: 200, body: JSON.stringify({ object: 'bundle', name: 'esim_5GB_30D_EU' }) };
    const body = await client().call(internalContract.catalogue.getBundle, { params: { name: 'esim_5GB_30D_EU' }, caller });
    expect(body).toMatchObject({ name: 'esim_5GB_30D_EU' });
    const last = seen.at(-1);
    expect(last?.url).toBe('/internal/bundles/esim_5GB_30D_EU');
    expect(last?.headers['x-internal-token']).toBe('a-token-of-enough-length');
    expect(last?.headers['x-account-id']).toBe(caller.accountId);
    expect(last?.headers['x-environment']).toBe('test');
    expect(last?.headers['x-key-id']).toBe(caller.keyId);
    expect(last?.headers['x-request-id']).toMatch(/^req_/);
  });

  test('send() puts the path on the wire as built: no URL parser resolves dot segments in it', async () => {
    answer = { status: 200, body: '{}' };
    await client().send({ method: 'GET', path: pathFor('/v1/esim/:id', { id: '..' }), search: 'limit=2' });
    expect(seen.at(-1)?.url).toBe('/v1/esim/%2E%2E?limit=2');
  });
});

describe('answers', () => {
  test("the service's error object comes back as the same ApiError", async () => {
    answer = {
      status: 404,
      body: JSON.stringify({
        error: {
          type: 'not_found',
          code: 'resource_not_found',
          message: 'No bundle x.',
          param: 'name',
          link: 'https://api.example.test/v1/errors/resource_not_found',
        },
      }),
    };
    const error = await client()
      .call(internalContract.catalogue.getBundle, { params: { name: 'x' }, caller })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'resource_not_found', param: 'name', message: 'No bundle x.' });
  });

  test("a refusal's Retry-After comes with its ApiError, and the error handler answers with it", async () => {
    answer = {
      status: 409,
      headers: { 'retry-after': '3' },
      body: JSON.stringify({
        error: {
          type: 'invalid_request',
          code: 'idempotency_key_reused',
          message: 'A request with this Idempotency-Key is still in progress. Retry later.',
          param: 'Idempotency-Key',
          link: 'https://api.example.test/v1/errors/idempotency_key_reused',
        },
      }),
    };
    const error = await client()
      .call(internalContract.catalogue.getBundle, { params: { name: 'x' }, caller })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'idempotency_key_reused', retryAfter: '3' });
    // Passed on by a service as its own answer (what the sandbox simulator does with inventory's).
    const app = express();
    app.get('/', () => {
      throw error;
    });
    app.use(errorHandler({ baseUrl: 'https://api.example.test', logger: createLogger({ name: 'test', level: 'silent' }) }));
    const passed = await request(app).get('/');
    expect(passed.status).toBe(409);
    expect(passed.headers['retry-after']).toBe('3');
    expect(passed.body.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(passed.body.error.retryAfter).toBeUndefined();
  });

  test('an answer without an error object is a plain error, never trusted as one', async () => {
    answer = { status: 500, body: 'Internal Server Error' };
    const error = await client()
      .call(internalContract.catalogue.getBundle, { params: { name: 'x' }, caller })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ApiError);
  });

  test('send() keeps the exact bytes of the body beside its text, so an image survives', async () => {
    const image = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xc3, 0x28, 0xff, 0xfe, 0x00, 0x80]);
    answer = { status: 200, body: image, type: 'image/png' };
    const response = await client().send({ method: 'GET', path: '/v1/esim/x/qr_code', caller });
    expect(response.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(response.bytes, image)).toBe(0);
    // The text is what UTF-8 decoding makes of it: not the same bytes any more.
    expect(Buffer.from(response.body, 'utf8').equals(image)).toBe(false);
    answer = { status: 200, body: '\ufeff{"a":"é"}' };
    const json = await client().send({ method: 'GET', path: '/x', caller });
    expect(json.body).toBe('{"a":"é"}');
    expect(json.bytes.toString('utf8')).toBe('\ufeff{"a":"é"}');
  });

  test('a service nobody listens on is an UpstreamFailure that was certainly not sent', async () => {
    const down = createInternalClient({ service: 'inventory', baseUrl: 'http://127.0.0.1:1', internalToken: 'x'.repeat(20), timeoutMs: 1_000 });
    const error = await down.send({ method: 'POST', path: '/x', body: '{}' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ notSent: true, timedOut: false, service: 'inventory' });
  });

  test('a connection never made is tried once more: a service that starts listening meanwhile gets the call, once', async () => {
    const port = await freePort();
    const calls: string[] = [];
    const late = createServer((req, res) => {
      calls.push(req.url ?? '');
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    const client = createInternalClient({
      service: 'inventory',
      baseUrl: `http://127.0.0.1:${port}`,
      internalToken: 'x'.repeat(20),
      timeoutMs: 5_000,
      connectRetryPauseMs: 1_000,
    });
    try {
      const call = client.send({ method: 'POST', path: '/v1/esim', body: '{}' });
      // The first connect is refused at once; the service is up well before the pause ends.
      setTimeout(() => late.listen(port, '127.0.0.1'), 200);
      const response = await call;
      expect(response.status).toBe(201);
      expect(calls).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => late.close(() => resolve()));
    }
  });

  test('no second try when the call has no time left for it', async () => {
    const down = createInternalClient({
      service: 'inventory',
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      internalToken: 'x'.repeat(20),
      timeoutMs: 500,
      connectRetryPauseMs: 5_000,
    });
    const started = performance.now();
    const error = await down.send({ method: 'GET', path: '/x' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ notSent: true });
    expect(performance.now() - started, 'failed without waiting for a pause longer than the timeout').toBeLessThan(4_000);
  });

  test('a call whose outcome is unknown (the connection dropped after the request went out) is not tried again', async () => {
    let requests = 0;
    const dropping = (req: IncomingMessage) => {
      requests += 1;
      req.socket.destroy();
    };
    const error = await serverCall(dropping, 2_000, 'POST', { connectRetryPauseMs: 10 });
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ notSent: false, timedOut: false });
    expect(requests).toBe(1);
  });

  /** Calls a server that answers with `handler`, through a client with `timeoutMs`; the call's error. */
  async function serverCall(
    handler: Parameters<typeof createServer>[1],
    timeoutMs: number,
    method: 'GET' | 'POST',
    options: { connectRetryPauseMs?: number } = {},
  ): Promise<unknown> {
    const slowServer = createServer(handler);
    await new Promise<void>((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
    try {
      const slow = createInternalClient({
        service: 'inventory',
        baseUrl: `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}`,
        internalToken: 'x'.repeat(20),
        timeoutMs,
        ...options,
      });
      return await slow.send({ method, path: '/x', ...(method === 'POST' && { body: '{}' }) }).catch((e: unknown) => e);
    } finally {
      slowServer.closeAllConnections();
      await new Promise((resolve) => slowServer.close(resolve));
    }
  }

  test('a service that does not answer in time is an UpstreamFailure with an unknown outcome', async () => {
    const error = await serverCall(() => {}, 200, 'POST');
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ notSent: false, timedOut: true });
  });

  test('the timeout bounds the whole call: a body that trickles in forever is given up too', async () => {
    // Headers at once, then a byte every 50 ms: no single wait is long, the call never ends.
    const error = await serverCall(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
      },
      300,
      'GET',
    );
    expect(error).toBeInstanceOf(UpstreamFailure);
    expect(error).toMatchObject({ notSent: false, timedOut: true });
  });
});

/** A port nothing listens on (a server's, closed again). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
