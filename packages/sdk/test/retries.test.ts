import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  ConflictError,
  Connectivity,
  ConnectionError,
  InternalError,
  InvalidRequestError,
  RateLimitError,
  SupplierError,
  UnexpectedResponseError,
  type ConnectivityOptions,
} from '../src/index.ts';
import { orderFixture } from './support/fixtures.ts';
import { apiError, drop, json, startScriptedServer, type Step } from './support/scripted-server.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Retries against a real HTTP server that plays failures: the client's waits are recorded by an
 * injected sleep (so nothing waits) and its jitter is fixed by an injected random.
 */
describe('safe retries', () => {
  let server: Awaited<ReturnType<typeof startScriptedServer>>;
  let sleeps: number[];

  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());
  beforeEach(() => {
    sleeps = [];
  });

  function client(options: Partial<ConnectivityOptions> = {}) {
    return new Connectivity({
      apiKey: 'sk_test_abc',
      baseUrl: server.url,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
      random: () => 0.5,
      ...options,
    });
  }

  const created = json(201, orderFixture);
  const buy = (connectivity: Connectivity, idempotencyKey?: string) =>
    connectivity.esims.create({ bundle: 'esim_5GB_30D_EU' }, idempotencyKey === undefined ? {} : { idempotencyKey });
  const keysSent = () => server.requests.map((request) => request.headers['idempotency-key']);

  test('a 503 then a 201: the order is returned, both attempts carry one generated uuid v4 key', async () => {
    server.play([apiError('supplier_unavailable'), created]);
    await expect(buy(client())).resolves.toEqual(orderFixture);
    const keys = keysSent();
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(UUID_V4);
    expect(keys[1]).toBe(keys[0]);
    expect(server.requests.map((request) => JSON.parse(request.body) as unknown)).toEqual([{ bundle: 'esim_5GB_30D_EU' }, { bundle: 'esim_5GB_30D_EU' }]);
  });

  test('each call gets its own key; a key given by the caller is used on every attempt', async () => {
    server.play([created, created]);
    const connectivity = client();
    await buy(connectivity);
    await buy(connectivity);
    const [first, second] = keysSent();
    expect(first).not.toBe(second);

    server.play([drop, apiError('internal_error'), created]);
    await buy(connectivity, 'order-2026-0001');
    expect(keysSent()).toEqual(['order-2026-0001', 'order-2026-0001', 'order-2026-0001']);
  });

  test('a dropped connection is retried with the same key (the response of the first attempt was lost)', async () => {
    server.play([drop, created]);
    await expect(buy(client())).resolves.toMatchObject({ id: orderFixture.id });
    const keys = keysSent();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  test('429 waits the Retry-After the service names, then retries', async () => {
    server.play([apiError('rate_limited', {}, { 'retry-after': '3' }), created]);
    await buy(client());
    expect(sleeps).toEqual([3000]);
    expect(server.requests).toHaveLength(2);
  });

  test('a Retry-After longer than maxRetryAfterMs is not waited for: the RateLimitError is thrown', async () => {
    server.play([apiError('rate_limited', {}, { 'retry-after': '120' })]);
    const error = await buy(client()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 120 });
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  test('backoff is exponential with full jitter when the service names no wait', async () => {
    server.play([apiError('internal_error'), apiError('internal_error'), created]);
    await buy(client({ random: () => 0.5, initialRetryDelayMs: 400 }));
    expect(sleeps).toEqual([200, 400]); // random x 400 x 2^0, random x 400 x 2^1
  });

  test('409 for a duplicate still in progress is retried, with its Retry-After or by message', async () => {
    const inProgress = { message: 'A request with this Idempotency-Key is still in progress. Retry later.', param: 'Idempotency-Key' };
    server.play([apiError('idempotency_key_reused', inProgress, { 'retry-after': '1' }), apiError('idempotency_key_reused', inProgress), created]);
    await expect(buy(client())).resolves.toMatchObject({ id: orderFixture.id });
    expect(sleeps).toEqual([1000, 500]);
    const keys = keysSent();
    expect(new Set(keys).size).toBe(1);
    expect(keys).toHaveLength(3);
  });

  test('409 for a key reused with a different body is not retried', async () => {
    server.play([
      apiError('idempotency_key_reused', {
        message: 'This Idempotency-Key was already used for a different request (method, path or body). Use a new key.',
        param: 'Idempotency-Key',
      }),
    ]);
    const error = await buy(client(), 'order-2026-0002').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(server.requests).toHaveLength(1);
  });

  test('400 is the answer: thrown at once as InvalidRequestError with every field of the error', async () => {
    server.play([apiError('invalid_parameter', { param: 'bundle', message: 'Unknown bundle `nope`.', detail: 'See GET /v1/esim/bundles.' })]);
    const error = await buy(client()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidRequestError);
    const typed = error as InvalidRequestError;
    expect({
      name: typed.name,
      status: typed.status,
      type: typed.type,
      code: typed.code,
      param: typed.param,
      message: typed.message,
      link: typed.link,
      detail: typed.detail,
      requestId: typed.requestId,
    }).toEqual({
      name: 'InvalidRequestError',
      status: 400,
      type: 'invalid_request',
      code: 'invalid_parameter',
      param: 'bundle',
      message: 'Unknown bundle `nope`.',
      link: 'https://api.example.test/v1/errors/invalid_parameter',
      detail: 'See GET /v1/esim/bundles.',
      requestId: 'req_0123456789abcdefghijkl',
    });
    expect(typed.headers.get('content-type')).toBe('application/json');
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('retries stop after maxRetries (default 2): the last answer is thrown', async () => {
    const always503: Step = apiError('supplier_unavailable');
    server.play([], always503);
    await expect(buy(client())).rejects.toBeInstanceOf(SupplierError);
    expect(server.requests).toHaveLength(3);

    server.play([], always503);
    await expect(buy(client({ maxRetries: 5 }))).rejects.toBeInstanceOf(SupplierError);
    expect(server.requests).toHaveLength(6);

    server.play([], always503);
    await expect(client().esims.create({ bundle: 'esim_5GB_30D_EU' }, { maxRetries: 0 })).rejects.toBeInstanceOf(SupplierError);
    expect(server.requests).toHaveLength(1);
  });

  test('a connection that fails on every attempt ends in ConnectionError', async () => {
    server.play([], drop);
    const error = await buy(client()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  test('a stored 5xx replayed for the Idempotency-Key is not retried (a retry would replay it again)', async () => {
    server.play([apiError('internal_error', {}, { 'idempotent-replayed': 'true' })]);
    await expect(buy(client())).rejects.toBeInstanceOf(InternalError);
    expect(server.requests).toHaveLength(1);
  });

  test('reads are retried too, and carry no Idempotency-Key', async () => {
    server.play([drop, apiError('internal_error')], json(200, { object: 'version', version: '2026-09-01', serves: ['2026-09-01'] }));
    await expect(client().version()).resolves.toEqual({ object: 'version', version: '2026-09-01', serves: ['2026-09-01'] });
    expect(server.requests.map((request) => [request.method, request.headers['idempotency-key']])).toEqual([
      ['GET', undefined],
      ['GET', undefined],
      ['GET', undefined],
    ]);
  });

  test('an error status without the error object is an UnexpectedResponseError', async () => {
    const html: Step = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<html>Bad Gateway</html>');
    };
    server.play([], html);
    const error = await buy(client({ maxRetries: 1 })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 502, body: '<html>Bad Gateway</html>' });
    expect(server.requests).toHaveLength(2);
  });

  test('an attempt that times out counts as a network error', async () => {
    // Generous enough that the answered retry never times out on a busy machine.
    const silent: Step = () => undefined;
    server.play([silent], created);
    await expect(buy(client({ timeoutMs: 1000 }))).resolves.toMatchObject({ id: orderFixture.id });
    const keys = keysSent();
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  test('the caller aborting stops the call and its retries', async () => {
    const controller = new AbortController();
    const connectivity = client({
      sleep: () => {
        controller.abort(new Error('caller gave up'));
        return Promise.reject(controller.signal.reason as Error);
      },
    });
    server.play([], apiError('internal_error'));
    await expect(connectivity.esims.create({ bundle: 'esim_5GB_30D_EU' }, { signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });
});
