import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import { ConnectivityError, createConnectivity, RateLimitError, type Connectivity } from '../src/index.ts';
import { esimFixture } from './support/fixtures.ts';
import { apiError, json, startScriptedServer, type Step } from './support/scripted-server.ts';

/** A list endpoint over `total` eSIMs whose cursor is the next offset, as the real one pages (opaque to the client). */
function pagedEsims(total: number): Step {
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const limit = Number(url.searchParams.get('limit') ?? '20');
    const offset = Number(url.searchParams.get('cursor') ?? '0');
    const data = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => esimFixture(offset + i));
    const hasMore = offset + data.length < total;
    json(200, { object: 'list', data, has_more: hasMore, next_cursor: hasMore ? String(offset + data.length) : null })(req, res);
  };
}

describe('the resource client', () => {
  let server: Awaited<ReturnType<typeof startScriptedServer>>;
  let connectivity: Connectivity;

  beforeAll(async () => {
    server = await startScriptedServer();
    connectivity = createConnectivity({ apiKey: 'sk_test_abc', baseUrl: `${server.url}/`, serviceVersion: '2026-09-01' });
  });
  afterAll(() => server.close());

  test('for await walks every page via next_cursor: 250 eSIMs, each exactly once, the query kept on every page', async () => {
    server.play([], pagedEsims(250));
    const ids: string[] = [];
    for await (const esim of connectivity.esims.list({ limit: 100 })) {
      expectTypeOf(esim.state).toEqualTypeOf<'released' | 'installed' | 'active' | 'suspended' | 'expired'>();
      ids.push(esim.id);
    }
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    expect(server.requests.map((request) => request.url)).toEqual(['/v1/esim?limit=100', '/v1/esim?limit=100&cursor=100', '/v1/esim?limit=100&cursor=200']);
    expect(server.requests.every((request) => request.headers.authorization === 'Bearer sk_test_abc')).toBe(true);
    expect(server.requests.every((request) => request.headers['service-version'] === '2026-09-01')).toBe(true);
  });

  test('awaiting a list gives its first page; breaking out of the loop stops the requests', async () => {
    server.play([], pagedEsims(250));
    const page = await connectivity.esims.list({ limit: 10 });
    expect(page).toMatchObject({ object: 'list', has_more: true, next_cursor: '10' });
    expect(page.data).toHaveLength(10);
    expect(server.requests).toHaveLength(1);

    server.play([], pagedEsims(250));
    let seen = 0;
    for await (const _esim of connectivity.esims.list({ limit: 10 })) {
      if (++seen === 15) break;
    }
    expect(server.requests).toHaveLength(2);

    server.play([], pagedEsims(250));
    const first25 = await connectivity.esims.list({ limit: 10 }).autoPagingToArray({ limit: 25 });
    expect(first25.map((esim) => esim.id)).toEqual(Array.from({ length: 25 }, (_, i) => esimFixture(i).id));
    expect(server.requests).toHaveLength(3);
  });

  test('pages() yields the envelopes; a list starts from a cursor the caller gives', async () => {
    server.play([], pagedEsims(30));
    const sizes: number[] = [];
    for await (const page of connectivity.esims.list({ limit: 10, cursor: '5' }).pages()) sizes.push(page.data.length);
    expect(sizes).toEqual([10, 10, 5]);
    expect(server.requests[0]?.url).toBe('/v1/esim?limit=10&cursor=5');
  });

  test('every list of the contract pages the same way, with its own path and filters', async () => {
    const lists: [string, () => AsyncIterable<unknown>][] = [
      ['/v1/esim/bundles?limit=5&countries=GB%2CFR', () => connectivity.bundles.list({ limit: 5, countries: 'GB,FR' })],
      ['/v1/events?limit=5', () => connectivity.events.list({ limit: 5 })],
      ['/v1/webhooks?limit=5', () => connectivity.webhooks.list({ limit: 5 })],
      ['/v1/webhooks/we_01jd8x7k2m9q4r5s6t7v8w9xyz/deliveries?limit=5', () => connectivity.webhooks.deliveries('we_01jd8x7k2m9q4r5s6t7v8w9xyz', { limit: 5 })],
      ['/v1/api_keys?limit=5', () => connectivity.apiKeys.list({ limit: 5 })],
      ['/v1/request_logs?limit=5', () => connectivity.requestLogs.list({ limit: 5 })],
      ['/v1/event_types?limit=5', () => connectivity.eventTypes.list({ limit: 5 })],
      ['/v1/error_codes?limit=5', () => connectivity.errorCodes.list({ limit: 5 })],
      ['/v1/test/clocks?limit=5', () => connectivity.testClocks.list({ limit: 5 })],
    ];
    for (const [url, list] of lists) {
      server.play([json(200, { object: 'list', data: [{ n: 1 }], has_more: true, next_cursor: 'c2' })]);
      const items: unknown[] = [];
      for await (const item of list()) items.push(item);
      expect(items).toHaveLength(1);
      expect(server.requests.map((request) => request.url)).toEqual([url, `${url}&cursor=c2`]);
    }
  });

  test('methods send the contract’s method and path; ids are percent-encoded path segments', async () => {
    server.play([], json(200, { ok: true }));
    await connectivity.esims.retrieve('8988201000000000001');
    await connectivity.esims.update('esim_01jd8x7k2m9q4r5s6t7v8w9xyz', { state: 'suspended' }, { idempotencyKey: 'suspend-0001' });
    await connectivity.webhooks.retrieve('we/../../api_keys');
    await connectivity.webhooks.update('we_1', { disabled: true });
    await connectivity.webhooks.delete('we_1');
    await connectivity.events.replay();
    await connectivity.testHelpers.usage({ esim: 'esim_1', bytes: 1000 });
    await connectivity.errorCodes.retrieve('rate_limited');
    await connectivity.testClocks.create();
    await connectivity.testClocks.create({ frozen_time: 1_798_761_600, name: 'renewals' });
    await connectivity.testClocks.retrieve('clock_1');
    await connectivity.testClocks.advance('clock_1', { frozen_time: 1_798_848_000 });
    await connectivity.testClocks.delete('clock_1');
    expect(server.requests.map((request) => `${request.method} ${request.url} ${request.body}`)).toEqual([
      'GET /v1/esim/8988201000000000001 ',
      'PATCH /v1/esim/esim_01jd8x7k2m9q4r5s6t7v8w9xyz {"state":"suspended"}',
      'GET /v1/webhooks/we%2F..%2F..%2Fapi_keys ',
      'PATCH /v1/webhooks/we_1 {"disabled":true}',
      'DELETE /v1/webhooks/we_1 ',
      'POST /v1/events/replay {}',
      'POST /v1/test/usage {"esim":"esim_1","bytes":1000}',
      'GET /v1/errors/rate_limited ',
      'POST /v1/test/clocks {}',
      'POST /v1/test/clocks {"frozen_time":1798761600,"name":"renewals"}',
      'GET /v1/test/clocks/clock_1 ',
      'POST /v1/test/clocks/clock_1/advance {"frozen_time":1798848000}',
      'DELETE /v1/test/clocks/clock_1 ',
    ]);
    expect(server.requests[1]?.headers['idempotency-key']).toBe('suspend-0001');
    expect(server.requests.filter((request) => request.method !== 'GET').every((request) => request.headers['idempotency-key'])).toBe(true);
    await expect(connectivity.esims.retrieve('')).rejects.toThrow(TypeError);
    await expect(connectivity.webhooks.deliveries('')).rejects.toThrow(TypeError);
  });

  test('testHelpers.error throws the chosen error, typed, and does not retry it', async () => {
    server.play([apiError('rate_limited')]);
    const error = await connectivity.testHelpers.error({ code: 'rate_limited' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toBeInstanceOf(ConnectivityError);
    expect(server.requests).toHaveLength(1);
  });

  test('the raw typed client is still there, on the same transport', async () => {
    server.play([], json(200, { object: 'version', version: '2026-09-01', serves: ['2026-09-01'] }));
    const response = await connectivity.raw.meta.getVersion();
    expect(response.status).toBe(200);
    if (response.status === 200) expectTypeOf(response.body.version).toEqualTypeOf<'2026-09-01'>();
  });
});
