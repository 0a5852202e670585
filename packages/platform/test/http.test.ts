import { ApiError } from '@connectivity/contracts';
import express from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { createLogger, createServiceApp, getCaller, MAX_BODY_BYTES } from '../src/index.ts';

const TOKEN = 'an-internal-token-of-some-length';
const identity = {
  'x-internal-token': TOKEN,
  'x-account-id': 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz',
  'x-environment': 'test',
  'x-key-id': 'key_01jd8x7k2m9q4r5s6t7v8w9xyz',
};

function app(options: { ready?: boolean } = {}) {
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level: 'info' }, { write: (line: string) => lines.push(line) });
  const built = createServiceApp({
    logger,
    baseUrl: 'https://api.example.test',
    internalToken: TOKEN,
    checks: {
      database: () => (options.ready === false ? Promise.reject(new Error('down')) : Promise.resolve()),
    },
    routes: (router) => {
      const routes = express.Router();
      routes.post('/echo', (req, res) => {
        res.json({ body: req.body as unknown, identity: getCaller(res) });
      });
      routes.get('/api-error', () => {
        throw new ApiError('invalid_parameter', { param: 'bundle', message: 'No such bundle.' });
      });
      routes.get('/boom', () => {
        throw new Error('database password is hunter2');
      });
      routes.get('/async-boom', async () => {
        await Promise.resolve();
        throw new TypeError('undefined is not a function');
      });
      router.use(routes);
    },
  });
  return { app: built, lines };
}

describe('createServiceApp', () => {
  test('renders an ApiError as the spec error object with a link', async () => {
    const response = await request(app().app).get('/api-error').set(identity);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        type: 'invalid_request',
        code: 'invalid_parameter',
        message: 'No such bundle.',
        param: 'bundle',
        link: 'https://api.example.test/v1/errors/invalid_parameter',
      },
    });
  });

  test('answers an unexpected error, sync or async, with internal_error and no stack or message leak', async () => {
    const { app: built, lines } = app();
    for (const path of ['/boom', '/async-boom']) {
      const response = await request(built).get(path).set(identity);
      expect(response.status).toBe(500);
      expect(response.body.error).toMatchObject({ type: 'internal', code: 'internal_error' });
      expect(JSON.stringify(response.body)).not.toMatch(/hunter2|TypeError|at .*\.ts/);
    }
    // The cause is logged for operators, with the request id.
    expect(lines.some((line) => line.includes('unhandled error') && line.includes('"request_id":"req_'))).toBe(true);
  });

  test('a body that is not JSON is body_not_json; one over 1 MiB is invalid_parameter body', async () => {
    const built = app().app;
    const bad = await request(built).post('/echo').set(identity).set('content-type', 'application/json').send('{"bundle":');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('body_not_json');
    const big = await request(built)
      .post('/echo')
      .set(identity)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ filler: 'x'.repeat(MAX_BODY_BYTES) }));
    expect(big.status).toBe(400);
    expect(big.body.error).toMatchObject({ code: 'invalid_parameter', param: 'body' });
  });

  test('an unknown route is 404 no_such_route', async () => {
    const response = await request(app().app).delete('/echo').set(identity);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('no_such_route');
  });

  test('refuses calls without the internal token, or with a wrong one', async () => {
    const built = app().app;
    const { 'x-internal-token': _token, ...withoutToken } = identity;
    for (const headers of [withoutToken, { ...identity, 'x-internal-token': 'wrong-token-of-same-length!!!!!!' }]) {
      const response = await request(built).post('/echo').set(headers).send({});
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('key_invalid');
    }
  });

  test('passes the identity of the internal headers to the route, and refuses a call without one', async () => {
    const built = app().app;
    const ok = await request(built).post('/echo').set(identity).send({ a: 1 });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ body: { a: 1 }, identity: { accountId: identity['x-account-id'], environment: 'test', keyId: identity['x-key-id'] } });
    const noEnv = await request(built)
      .post('/echo')
      .set({ ...identity, 'x-environment': 'staging' })
      .send({});
    expect(noEnv.status).toBe(401);
    expect(noEnv.body.error.code).toBe('key_missing');
  });

  test('every response carries a Request-Id; a well-formed forwarded one is kept', async () => {
    const built = app().app;
    const fresh = await request(built).get('/api-error').set(identity);
    expect(fresh.headers['request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    const forwarded = 'req_01jd8x7k2m9q4r5s6t7v8w9xyz';
    const kept = await request(built)
      .get('/api-error')
      .set({ ...identity, 'x-request-id': forwarded });
    expect(kept.headers['request-id']).toBe(forwarded);
    const junk = await request(built)
      .get('/api-error')
      .set({ ...identity, 'x-request-id': '<script>' });
    expect(junk.headers['request-id']).toMatch(/^req_/);
    expect(junk.headers['request-id']).not.toBe('<script>');
  });

  test('/healthz needs no token; /readyz reports each dependency', async () => {
    expect((await request(app().app).get('/healthz')).status).toBe(200);
    const ready = await request(app().app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', checks: { database: 'ok' } });
    const notReady = await request(app({ ready: false }).app).get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({ status: 'unavailable', checks: { database: 'unavailable' } });
  });
});

describe('healthRoutes', () => {
  test('/readyz answers repeated and concurrent calls from one round of checks, then checks again', async () => {
    const { healthRoutes } = await import('../src/index.ts');
    let pings = 0;
    const app = express().use(healthRoutes({ database: () => Promise.resolve(void (pings += 1)) }, { cacheMs: 1_500 }));
    const answers = await Promise.all(Array.from({ length: 20 }, () => request(app).get('/readyz')));
    for (let i = 0; i < 10; i += 1) answers.push(await request(app).get('/readyz'));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    expect(pings).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await request(app).get('/readyz')).status).toBe(200);
    expect(pings).toBe(2);
  });
});

describe('findUnstorable', () => {
  test('names the first field holding text PostgreSQL refuses, keys included', async () => {
    const { findUnstorable } = await import('../src/index.ts');
    expect(findUnstorable({ a: 'ok', b: ['x', 'y\u0000'] })).toBe('b.1');
    expect(findUnstorable({ metadata: { 'k\u0000': 'v' } })).toBe('metadata.k\u0000');
    expect(findUnstorable({ description: 'lone \ud800' })).toBe('description');
    expect(findUnstorable('\u0000')).toBe('body');
    expect(findUnstorable({ fine: [1, true, null, 'é', '😀'] })).toBeUndefined();
  });

  test('survives any depth a JSON parser accepts', async () => {
    const { findUnstorable } = await import('../src/index.ts');
    const depth = 100_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`) as unknown;
    expect(findUnstorable(deep)?.split('.')).toHaveLength(depth);
  });
});
