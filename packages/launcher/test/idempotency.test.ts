import { randomBytes } from 'node:crypto';
import { createAccount } from '@connectivity/gateway';
import { idempotencyOwner } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack, type Reply } from '../src/local-stack.ts';

/**
 * Stripe's promise, through the gateway to the real services: a retry with the same
 * Idempotency-Key never repeats the side effect, whatever crashed in between. The owning
 * service records the key with its change, so even a gateway that lost its own record (it died
 * before storing the answer) gets the first answer back instead of a second change.
 */
describe('idempotency end to end', () => {
  let stack: LocalStack;
  let testKey = '';
  /** Whose Idempotency-Keys these are: the account and environment, not the API key (record 0200). */
  let owner = '';

  beforeAll(async () => {
    stack = await startLocalStack();
    const account = await createAccount(stack.db.knex);
    testKey = account.test.secret;
    owner = idempotencyOwner(account.account.id, 'test');
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  });

  const send = async (method: string, path: string, key: string, body?: unknown): Promise<Reply> => {
    const response = await fetch(`${stack.composition.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Reply['body'], headers: response.headers };
  };
  const newKey = () => `retry-${randomBytes(8).toString('hex')}`;
  /** What a gateway that died before storing its answer leaves behind: nothing. */
  const gatewayForgets = (key: string) => stack.db.knex('gateway.idempotency_records').where({ key_id: owner, idempotency_key: key }).delete();
  const count = async (table: string, where: Record<string, unknown> = {}) =>
    Number((await stack.db.knex(table).where(where).count<{ count: string }[]>('* as count'))[0]?.count);

  test('an order retried after the gateway lost its record is the same order, placed once', async () => {
    const key = newKey();
    const body = { bundle: 'esim_5GB_30D_EU', quantity: 2 };
    const first = await send('POST', '/v1/esim', key, body);
    expect(first.status).toBe(201);
    const orders = await count('inventory.orders');
    await gatewayForgets(key);
    const retry = await send('POST', '/v1/esim', key, body);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('inventory.orders')).toBe(orders);
    expect(await count('inventory.esims', { order_id: String(first.body.id) })).toBe(2);
  });

  test('usage retried after the gateway lost its record is counted once', async () => {
    const order = await send('POST', '/v1/esim', newKey(), { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    const esim = (order.body.esims as { id: string }[])[0]?.id ?? '';
    const key = newKey();
    const first = await send('POST', '/v1/test/usage', key, { esim, bytes: 1_000_000 });
    expect(first.status).toBe(200);
    await gatewayForgets(key);
    const retry = await send('POST', '/v1/test/usage', key, { esim, bytes: 1_000_000 });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const now = await stack.call(testKey, 'GET', `/v1/esim/${esim}`);
    expect(now.body.data_used_bytes).toBe(1_000_000);
  });

  test('a state change retried after the gateway lost its record is answered as it was', async () => {
    const order = await send('POST', '/v1/esim', newKey(), { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    const esim = (order.body.esims as { id: string }[])[0]?.id ?? '';
    const key = newKey();
    const first = await send('PATCH', `/v1/esim/${esim}`, key, { state: 'installed' });
    expect(first.status).toBe(200);
    await gatewayForgets(key);
    const retry = await send('PATCH', `/v1/esim/${esim}`, key, { state: 'installed' });
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
  });

  test('a new webhook endpoint is created once; its secret is replayed only by notifications, sealed at rest', async () => {
    const key = newKey();
    const body = { url: 'http://127.0.0.1:9/hooks-once', enabled_events: ['*'] };
    const first = await send('POST', '/v1/webhooks', key, body);
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const secret = String(first.body.secret);
    // The edge keeps no answer at all (nothing that shows a secret): only which request the key is for.
    const atEdge = await stack.db.knex('gateway.idempotency_records').where({ key_id: owner, idempotency_key: key }).select('status', 'response_body');
    expect(atEdge).toEqual([{ status: 'forwarded', response_body: null }]);
    const retry = await send('POST', '/v1/webhooks', key, body);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await count('notifications.endpoints', { url: body.url })).toBe(1);
    const kept = await stack.db.knex('notifications.idempotency_records').where({ key_id: owner, idempotency_key: key }).first<{ response_body: string }>();
    expect(kept?.response_body).toBeDefined();
    expect(kept?.response_body).not.toContain(secret);
    expect(kept?.response_body).not.toContain(secret.slice(6, 20));
  });

  test('parameters are compared, not bytes: the same body with its keys reordered or spaced otherwise is a replay; another value is 409', async () => {
    const key = newKey();
    const raw = async (text: string) => {
      const response = await fetch(`${stack.composition.gatewayUrl}/v1/esim`, {
        method: 'POST',
        headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: text,
      });
      return { status: response.status, body: (await response.json()) as Reply['body'], replayed: response.headers.get('idempotent-replayed') };
    };
    const first = await raw('{"bundle":"esim_5GB_30D_EU","quantity":1}');
    expect(first.status).toBe(201);
    const orders = await count('inventory.orders');
    for (const same of ['{"quantity":1,"bundle":"esim_5GB_30D_EU"}', '{\n  "bundle" : "esim_5GB_30D_EU",\n  "quantity" : 1\n}']) {
      const again = await raw(same);
      expect(again.status, same).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.replayed).toBe('true');
    }
    // Through the service too, when the gateway lost its record.
    await gatewayForgets(key);
    const afterLoss = await raw('{ "quantity": 1, "bundle": "esim_5GB_30D_EU" }');
    expect(afterLoss.status).toBe(201);
    expect(afterLoss.body).toEqual(first.body);
    expect(await count('inventory.orders')).toBe(orders);
    const different = await raw('{"bundle":"esim_5GB_30D_EU","quantity":2}');
    expect(different.status).toBe(409);
    expect(different.body.error?.code).toBe('idempotency_key_reused');
  });
});
