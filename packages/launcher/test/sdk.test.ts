import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ERROR_CODES, EVENT_TYPES } from '@connectivity/contracts';
import { ensureDevAccount } from '@connectivity/gateway';
import {
  AuthenticationError,
  ConflictError,
  Connectivity,
  createClient,
  InvalidRequestError,
  isKnownEvent,
  NotFoundError,
  SupplierError,
  verifyWebhook,
  type ConnectivityOptions,
  type TypedEvent,
  type WebhookEvent,
} from '@connectivity/sdk';
import { webhookMiddleware } from '@connectivity/sdk/express';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';

const BUNDLE = 'esim_5GB_30D_EU';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closeServer = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    if (!server) return resolve();
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** What the proxy does with one request: pass the answer on, or cut the client off before or after the gateway answered. */
type ProxyAction = 'pass' | 'drop-before-answer' | 'drop-after-answer';

interface Proxied {
  method: string;
  url: string;
  idempotencyKey: string | undefined;
  action: ProxyAction;
  upstream: Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>;
}

/**
 * A tiny proxy between the SDK and the gateway that can lose a response: the request always
 * reaches the gateway in full (so the order is really placed), but the SDK's connection is cut
 * before or after the gateway's answer, as a crash, a load balancer or a flaky network would.
 */
async function startLossyProxy(target: string) {
  const seen: Proxied[] = [];
  let decide: (method: string, url: string, index: number) => ProxyAction = () => 'pass';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const action = decide(method, url, seen.length);
      const upstream = new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
        const forward = httpRequest(`${target}${url}`, { method, headers: { ...req.headers, host: new URL(target).host } }, (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            const body = Buffer.concat(parts).toString();
            resolve({ status: answer.statusCode ?? 0, headers: answer.headers, body });
            if (action === 'drop-after-answer') {
              req.socket.destroy();
            } else if (action === 'pass') {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(body);
            }
          });
        });
        forward.on('error', reject);
        forward.end(Buffer.concat(chunks));
      });
      if (action === 'drop-before-answer') req.socket.destroy();
      const idempotencyKey = req.headers['idempotency-key'];
      seen.push({ method, url, idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey : undefined, action, upstream });
    });
  });
  const url = await listen(server);
  return {
    url,
    seen,
    /** Sets the policy and forgets what was seen. */
    policy(next: typeof decide) {
      decide = next;
      seen.length = 0;
    },
    close: () => closeServer(server),
  };
}

/**
 * What an integrator does with the SDK, against the real system (PostgreSQL + NATS when
 * configured, else PGlite + the in-process bus): typed calls through the gateway, lists walked
 * page by page, retries that never buy twice, typed errors, and webhook receivers that verify
 * deliveries with the SDK.
 */
describe('the SDK against the running system', () => {
  let stack: LocalStack;
  let receiver: Server;
  let receiverUrl = '';
  let secret = '';
  const received: TypedEvent[] = [];
  let client: ReturnType<typeof createClient>;
  let testKey = '';
  let connectivity: Connectivity;
  let proxy: Awaited<ReturnType<typeof startLossyProxy>>;

  const connect = (options: Partial<ConnectivityOptions> = {}) =>
    new Connectivity({ apiKey: testKey, baseUrl: stack.composition.gatewayUrl, initialRetryDelayMs: 20, ...options });

  /** Every eSIM id of the account, each page requested in turn. */
  async function allEsimIds(pageSize = 100): Promise<string[]> {
    const ids: string[] = [];
    for await (const esim of connectivity.esims.list({ limit: pageSize })) ids.push(esim.id);
    return ids;
  }

  beforeAll(async () => {
    // The paging test buys 250 eSIMs: a rate limit of 120 a minute is not what is under test here.
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50', RATE_LIMIT_PER_MINUTE: '100000' });
    testKey = (await ensureDevAccount({ db: stack.db })).testKey;
    client = createClient({ apiKey: testKey, baseUrl: stack.composition.gatewayUrl });
    connectivity = connect();
    proxy = await startLossyProxy(stack.composition.gatewayUrl);
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        try {
          received.push(verifyWebhook(Buffer.concat(chunks), req.headers, secret));
          res.writeHead(204).end();
        } catch {
          res.writeHead(400).end();
        }
      });
    });
    receiverUrl = `${await listen(receiver)}/sdk-hooks`;
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    await stack?.close();
    await closeServer(receiver);
  });

  test('typed calls buy, move and use an eSIM; the webhooks verify as typed events', async () => {
    const hook = await client.webhooks.createWebhook({
      headers: { 'idempotency-key': 'sdk-hook-0001' },
      body: { url: receiverUrl, enabled_events: ['esim.released', 'esim.installed'] },
    });
    if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    secret = hook.body.secret;

    const version = await client.meta.getVersion();
    expect(version.status === 200 && version.body.version).toBe('2026-09-01');

    const order = await client.esim.createEsim({ headers: { 'idempotency-key': 'sdk-order-0001' }, body: { bundle: BUNDLE } });
    if (order.status !== 201) throw new Error(`order: ${order.status} ${JSON.stringify(order.body)}`);
    const esim = order.body.esims[0];
    expect(esim?.iccid).toMatch(/^89882\d{14}$/);

    // The same Idempotency-Key returns the stored answer, not a second order.
    const again = await client.esim.createEsim({ headers: { 'idempotency-key': 'sdk-order-0001' }, body: { bundle: BUNDLE } });
    expect(again.status === 201 && again.body.id).toBe(order.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const moved = await client.esim.updateEsim({
      params: { id: esim?.id ?? '' },
      headers: { 'idempotency-key': 'sdk-move-00001' },
      body: { state: 'installed' },
    });
    expect(moved.status === 200 && moved.body.state).toBe('installed');

    const refused = await client.esim.updateEsim({
      params: { id: esim?.id ?? '' },
      headers: { 'idempotency-key': 'sdk-move-00002' },
      body: { state: 'released' },
    });
    expect(refused.status).toBe(409);
    if (refused.status === 409) expect(refused.body.error.code).toBe('invalid_state_transition');

    const listed = await client.esim.listEsims({ query: { limit: 5 } });
    expect(listed.status === 200 && listed.body.data.map((item) => item.id)).toContain(esim?.id);

    await vi.waitFor(
      () => {
        const mine = received.filter((event) => isKnownEvent(event) && 'id' in event.data.object && event.data.object.id === esim?.id);
        expect(mine.map((event) => event.type).sort()).toEqual(['esim.installed', 'esim.released']);
      },
      { timeout: 30_000, interval: 100 },
    );
  }, 120_000);

  test('for await walks every page: 250 eSIMs bought in orders of 10 are each listed exactly once', async () => {
    const bought: string[] = [];
    for (let order = 0; order < 25; order += 1) {
      const placed = await connectivity.esims.create({ bundle: BUNDLE, quantity: 10 });
      expect(placed.esims).toHaveLength(10);
      bought.push(...placed.esims.map((esim) => esim.id));
    }
    expect(new Set(bought).size).toBe(250);

    const listed = await allEsimIds(100);
    expect(listed.length).toBeGreaterThanOrEqual(250);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.filter((id) => bought.includes(id))).toHaveLength(250);

    // Another page size walks the same eSIMs; awaiting a list gives its first page.
    expect((await allEsimIds(37)).sort()).toEqual([...listed].sort());
    const first = await connectivity.esims.list({ limit: 100 });
    expect(first).toMatchObject({ object: 'list', has_more: true });
    expect(first.data.map((esim) => esim.id)).toEqual(listed.slice(0, 100));

    // The events of those purchases page the same way, once they have reached the event log.
    await vi.waitFor(
      async () => {
        const released = new Set<string>();
        const ids: string[] = [];
        for await (const event of connectivity.events.list({ limit: 100 })) {
          ids.push(event.id);
          const data = event.data as { object?: { id?: string } };
          if (event.type === 'esim.released' && data.object?.id && bought.includes(data.object.id)) released.add(data.object.id);
        }
        expect(new Set(ids).size).toBe(ids.length);
        expect(released.size).toBe(250);
      },
      { timeout: 60_000, interval: 250 },
    );
  }, 180_000);

  test('every other list of the contract pages through the SDK too', async () => {
    const viaPages: string[] = [];
    for await (const bundle of connectivity.bundles.list({ limit: 7 })) viaPages.push(bundle.name);
    const onePage = await connectivity.bundles.list({ limit: 100 });
    expect(onePage.has_more).toBe(false);
    expect(viaPages).toEqual(onePage.data.map((bundle) => bundle.name));
    expect(viaPages.length).toBeGreaterThanOrEqual(25);

    const europe: string[] = [];
    for await (const bundle of connectivity.bundles.list({ limit: 2, region: 'europe' })) europe.push(bundle.name);
    expect(europe.length).toBeGreaterThan(2);
    expect(europe.every((name) => viaPages.includes(name))).toBe(true);

    const types: string[] = [];
    for await (const item of connectivity.eventTypes.list({ limit: 4 })) types.push(item.type);
    expect(types).toEqual([...EVENT_TYPES]);

    const codes: string[] = [];
    for await (const item of connectivity.errorCodes.list({ limit: 10 })) codes.push(item.code);
    expect(codes).toEqual([...ERROR_CODES]);

    const keys = await connectivity.apiKeys.list({ limit: 1 }).autoPagingToArray({ limit: 100 });
    expect(keys.length).toBeGreaterThanOrEqual(1);
    expect(keys.every((key) => key.object === 'api_key' && !('secret' in key))).toBe(true);
  }, 60_000);

  test('the balance, its transactions and refunds through the SDK: the simulated balance pays, a refund credits it, every page walked', async () => {
    expect(await connectivity.balance.retrieve()).toMatchObject({ object: 'balance', environment: 'test', available_cents: null, simulated: true });
    await connectivity.testHelpers.setBalance({ available_cents: 100_000, low_balance_threshold_cents: 1_000 });
    try {
      const orders = [];
      for (let i = 0; i < 3; i += 1) orders.push(await connectivity.esims.create({ bundle: BUNDLE, quantity: 1 }));
      const paid = orders.reduce((sum, order) => sum + order.total_cents, 0);
      expect((await connectivity.balance.retrieve()).available_cents).toBe(100_000 - paid);

      const walked: string[] = [];
      for await (const transaction of connectivity.balanceTransactions.list({ limit: 1 })) walked.push(transaction.type);
      expect(walked).toEqual(['order', 'order', 'order', 'adjustment']);
      const ofOrder = await connectivity.balanceTransactions.list({ source: orders[0]!.id });
      expect(ofOrder.data).toMatchObject([{ type: 'order', amount_cents: -orders[0]!.total_cents }]);

      const cancelled = await connectivity.esims.update(orders[0]!.esims[0]!.id, { state: 'expired' });
      expect(cancelled.expired_reason).toBe('cancelled');
      const [refund] = await connectivity.refunds.list({ esim: cancelled.id }).autoPagingToArray({ limit: 10 });
      expect(refund).toMatchObject({ status: 'pending', amount_cents: orders[0]!.price_cents });
      const settled = await connectivity.testHelpers.settleRefund(refund!.id, { status: 'succeeded' });
      expect(settled.status).toBe('succeeded');
      expect(await connectivity.refunds.retrieve(refund!.id)).toEqual(settled);
      expect((await connectivity.balance.retrieve()).available_cents).toBe(100_000 - paid + orders[0]!.price_cents);
      await expect(connectivity.refunds.retrieve('re_01m7q5dqbb7ct2kdy8s4wa5n1f')).rejects.toBeInstanceOf(NotFoundError);
    } finally {
      await connectivity.testHelpers.setBalance({ available_cents: null, low_balance_threshold_cents: null });
    }
  }, 60_000);

  test('a purchase whose response is lost is retried with its key and buys exactly once', async () => {
    const lossy = connect({ baseUrl: proxy.url });
    const before = new Set(await allEsimIds());

    // The gateway answers, but the answer never reaches the SDK: it retries and gets the stored order.
    let purchases = 0;
    proxy.policy((method, url) => (method === 'POST' && url === '/v1/esim' && purchases++ === 0 ? 'drop-after-answer' : 'pass'));
    const order = await lossy.esims.create({ bundle: BUNDLE, quantity: 3 });
    const attempts = proxy.seen.filter((request) => request.method === 'POST');
    expect(attempts.map((request) => request.action)).toEqual(['drop-after-answer', 'pass']);
    expect(attempts[1]?.idempotencyKey).toBe(attempts[0]?.idempotencyKey);
    const [lost, replayed] = await Promise.all(attempts.map((request) => request.upstream));
    expect(lost?.status).toBe(201);
    expect((JSON.parse(lost?.body ?? '{}') as { id?: string }).id).toBe(order.id);
    expect(replayed?.headers['idempotent-replayed']).toBe('true');

    // The connection is cut before the gateway answers: the retry may find the purchase still in
    // progress (409, retried) or done (replayed); either way one order.
    purchases = 0;
    proxy.policy((method, url) => (method === 'POST' && url === '/v1/esim' && purchases++ === 0 ? 'drop-before-answer' : 'pass'));
    const second = await connect({ baseUrl: proxy.url, maxRetries: 8 }).esims.create({ bundle: BUNDLE, quantity: 2 });
    const secondAttempts = proxy.seen.filter((request) => request.method === 'POST');
    expect(secondAttempts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(secondAttempts.map((request) => request.idempotencyKey)).size).toBe(1);
    const answers = await Promise.all(secondAttempts.map((request) => request.upstream));
    const outcomes = answers.map((answer) => {
      const body = JSON.parse(answer.body) as { id?: string; error?: { code?: string } };
      return answer.status === 201 ? `201 ${body.id}` : `${answer.status} ${body.error?.code}`;
    });
    // Every attempt that reached the service got the one order (placed or replayed), or was told it was in progress.
    const answered = outcomes.filter((outcome) => outcome !== '409 idempotency_key_reused');
    expect(answered.length).toBeGreaterThanOrEqual(1);
    expect(new Set(answered)).toEqual(new Set([`201 ${second.id}`]));

    const added = (await allEsimIds()).filter((id) => !before.has(id));
    expect(added.sort()).toEqual([...order.esims, ...second.esims].map((esim) => esim.id).sort());
  }, 60_000);

  test('errors arrive typed, with the request id; answers that are final are not retried', async () => {
    proxy.policy(() => 'pass');
    const viaProxy = connect({ baseUrl: proxy.url });

    const missing = await viaProxy.esims.retrieve('esim_00000000000000000000000000').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ status: 404, type: 'not_found', code: 'resource_not_found' });
    expect((missing as NotFoundError).requestId).toMatch(/^req_/);
    expect((missing as NotFoundError).link).toMatch(/\/v1\/errors\/resource_not_found$/);

    const unknownBundle = await viaProxy.esims.create({ bundle: 'esim_no_such_bundle' }).catch((error: unknown) => error);
    expect(unknownBundle).toBeInstanceOf(InvalidRequestError);
    expect(unknownBundle).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'bundle' });

    const [esim] = (await viaProxy.esims.create({ bundle: BUNDLE })).esims;
    await viaProxy.esims.update(esim?.id ?? '', { state: 'expired' });
    const final = await viaProxy.esims.update(esim?.id ?? '', { state: 'active' }).catch((error: unknown) => error);
    expect(final).toBeInstanceOf(ConflictError);
    expect(final).toMatchObject({ status: 409, code: 'invalid_state_transition' });

    proxy.policy(() => 'pass');
    await viaProxy.esims.create({ bundle: BUNDLE }, { idempotencyKey: 'sdk-reused-key-0001' });
    const reused = await viaProxy.esims.create({ bundle: BUNDLE, quantity: 2 }, { idempotencyKey: 'sdk-reused-key-0001' }).catch((error: unknown) => error);
    expect(reused).toBeInstanceOf(ConflictError);
    expect(reused).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(proxy.seen.filter((request) => request.idempotencyKey === 'sdk-reused-key-0001')).toHaveLength(2);

    proxy.policy(() => 'pass');
    const chosen = await viaProxy.testHelpers.error({ code: 'supplier_refused', message: 'Chosen.' }).catch((error: unknown) => error);
    expect(chosen).toBeInstanceOf(SupplierError);
    expect(chosen).toMatchObject({ status: 503, code: 'supplier_refused', message: 'Chosen.' });
    expect(proxy.seen).toHaveLength(1);

    const stranger = await connect({ apiKey: `sk_test_${'x'.repeat(32)}` })
      .version()
      .catch((error: unknown) => error);
    expect(stranger).toBeInstanceOf(AuthenticationError);
    expect(stranger).toMatchObject({ status: 401, code: 'key_invalid' });
  }, 60_000);

  test('webhook endpoints through the resources, with a receiver built on webhookMiddleware', async () => {
    const events: WebhookEvent[] = [];
    // The secret exists only once the endpoint does; until then the receiver refuses (and the service would retry).
    let handle: ReturnType<typeof webhookMiddleware> | undefined;
    const hooks = createServer((req, res) => (handle ? handle(req, res, () => res.writeHead(500).end()) : res.writeHead(503).end()));
    const url = `${await listen(hooks)}/typed-hooks`;
    try {
      const endpoint = await connectivity.webhooks.create({ url, enabled_events: ['esim.released', 'esim.usage.threshold'], description: 'SDK test' });
      expect(endpoint.secret).toMatch(/^whsec_/);
      handle = webhookMiddleware({ secret: endpoint.secret, onEvent: (event) => void events.push(event) });

      const [esim] = (await connectivity.esims.create({ bundle: BUNDLE })).esims;
      const limit = esim?.data_limit_bytes ?? 0;
      await connectivity.testHelpers.usage({ esim: esim?.id ?? '', bytes: Math.ceil(limit * 0.5) });

      await vi.waitFor(
        () => {
          const thresholds = events.flatMap((event) =>
            event.type === 'esim.usage.threshold' && event.data.object.id === esim?.id ? [event.data.threshold_percent] : [],
          );
          expect(thresholds).toEqual([50]);
          expect(events.some((event) => event.type === 'esim.released' && event.data.object.id === esim?.id)).toBe(true);
        },
        { timeout: 30_000, interval: 100 },
      );

      const attempts = await connectivity.webhooks.deliveries(endpoint.id, { limit: 1 }).autoPagingToArray({ limit: 50 });
      expect(attempts.length).toBeGreaterThanOrEqual(2);
      expect(attempts.every((attempt) => attempt.endpoint === endpoint.id && attempt.status === 'succeeded')).toBe(true);

      expect((await connectivity.webhooks.retrieve(endpoint.id)).description).toBe('SDK test');
      expect((await connectivity.webhooks.update(endpoint.id, { disabled: true })).disabled).toBe(true);
      const listed: string[] = [];
      for await (const item of connectivity.webhooks.list({ limit: 1 })) listed.push(item.id);
      expect(listed).toContain(endpoint.id);
      expect(await connectivity.webhooks.delete(endpoint.id)).toMatchObject({ id: endpoint.id, deleted: true });
      await expect(connectivity.webhooks.retrieve(endpoint.id)).rejects.toBeInstanceOf(NotFoundError);

      const replay = await connectivity.events.replay({ since: Math.floor(Date.now() / 1000) - 60 });
      expect(replay.object).toBe('replay');
    } finally {
      await closeServer(hooks);
    }
  }, 60_000);
});
