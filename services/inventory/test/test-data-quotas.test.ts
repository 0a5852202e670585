import type { Esim, Order, TestClock } from '@connectivity/contracts';
import { newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../src/db/schema.ts';
import { headersFor, newCaller, startInventory, type Caller, type Harness } from './support.ts';

/**
 * The quotas of test data (record 0212) with small figures, on PostgreSQL + NATS when configured,
 * else PGlite + the in-process bus: test clocks per account, test eSIMs per UTC day (counted with
 * the order, so concurrent orders cannot pass it), and the metadata limits naming themselves.
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory({ TEST_CLOCKS_PER_ACCOUNT: '3', TEST_ESIMS_PER_DAY: '10' });
});
afterAll(async () => {
  await h.close();
});

const key = () => `idem-${newId('request')}`;
const createClock = (caller: Caller) => request(h.app).post('/v1/test/clocks').set(headersFor(caller)).set('Idempotency-Key', key()).send({});
const esimsOf = async (caller: Caller) =>
  Number(
    (
      await h.db.knex
        .withSchema(SCHEMA)
        .from('esims')
        .where({ account_id: caller.accountId, environment: caller.environment })
        .count<{ n: string | number }[]>({ n: '*' })
    )[0]?.n ?? 0,
  );

function expectQuotaExceeded(res: request.Response, limit: string, value: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.error).toMatchObject({ type: 'permission', code: 'quota_exceeded' });
  expect(res.body.error.message).toContain(`the limit ${limit} is ${value}`);
  expect(res.body.error.link).toMatch(/\/v1\/errors\/quota_exceeded$/);
}

describe('test clocks per account', () => {
  it('refuses one past the quota with quota_exceeded naming the limit; a deleted clock frees its place; other accounts are apart', async () => {
    const caller = newCaller('test');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const res = await createClock(caller);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      ids.push((res.body as TestClock).id);
    }
    expectQuotaExceeded(await createClock(caller), 'TEST_CLOCKS_PER_ACCOUNT', 3);
    expect((await h.get(caller, '/v1/test/clocks')).body.data).toHaveLength(3);
    expect((await createClock(newCaller('test'))).status).toBe(201);

    const deleted = await request(h.app).delete(`/v1/test/clocks/${ids[0]}`).set(headersFor(caller)).set('Idempotency-Key', key());
    expect(deleted.status).toBe(200);
    expect((await createClock(caller)).status).toBe(201);
    expectQuotaExceeded(await createClock(caller), 'TEST_CLOCKS_PER_ACCOUNT', 3);
  });

  it('never lets concurrent creates pass the quota together', async () => {
    const caller = newCaller('test');
    const answers = await Promise.all(Array.from({ length: 6 }, () => createClock(caller)));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 201, 201, 403, 403, 403]);
    expect((await h.get(caller, '/v1/test/clocks')).body.data).toHaveLength(3);
  });
});

describe('test eSIMs per UTC day', () => {
  it('counts the quantity of each order: one that would pass the quota is refused whole, naming the limit; a smaller one still fits', async () => {
    const caller = newCaller('test');
    expect((await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 6 })).status).toBe(201);
    const refused = await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 5 });
    expectQuotaExceeded(refused, 'TEST_ESIMS_PER_DAY', 10);
    expect(refused.body.error.message).toContain('this order of 5');
    expect(await esimsOf(caller)).toBe(6);
    expect((await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 4 })).status).toBe(201);
    expectQuotaExceeded(await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 1 }), 'TEST_ESIMS_PER_DAY', 10);
    expect(await esimsOf(caller)).toBe(10);
    // Another account has its own quota.
    expect((await h.order(newCaller('test'), { bundle: 'esim_5GB_30D_EU', quantity: 10 })).status).toBe(201);
  });

  it('never lets concurrent orders pass it together, batched or not', async () => {
    const caller = newCaller('test');
    const answers = await Promise.all(Array.from({ length: 8 }, () => h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 2 })));
    expect(answers.filter((res) => res.status === 201)).toHaveLength(5);
    for (const res of answers.filter((answer) => answer.status !== 201)) expectQuotaExceeded(res, 'TEST_ESIMS_PER_DAY', 10);
    expect(await esimsOf(caller)).toBe(10);
  });

  it('takes concurrent orders of several accounts together: those that fit all pass, an account past it only up to its quota', async () => {
    const [fits, passes, full] = [newCaller('test'), newCaller('test'), newCaller('test')];
    expect((await h.order(full, { bundle: 'esim_5GB_30D_EU', quantity: 9 })).status).toBe(201);
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => h.order(fits, { bundle: 'esim_5GB_30D_EU', quantity: 2 })),
      ...Array.from({ length: 4 }, () => h.order(passes, { bundle: 'esim_5GB_30D_EU', quantity: 3 })),
      ...Array.from({ length: 2 }, () => h.order(full, { bundle: 'esim_5GB_30D_EU', quantity: 1 })),
    ]);
    const statuses = answers.map((res) => res.status);
    expect(statuses.slice(0, 5)).toEqual([201, 201, 201, 201, 201]);
    expect(statuses.slice(5, 9).sort()).toEqual([201, 201, 201, 403]);
    expect(statuses.slice(9).sort()).toEqual([201, 403]);
    for (const res of answers.filter((answer) => answer.status !== 201)) expectQuotaExceeded(res, 'TEST_ESIMS_PER_DAY', 10);
    expect([await esimsOf(fits), await esimsOf(passes), await esimsOf(full)]).toEqual([10, 9, 10]);
    expectQuotaExceeded(await h.order(fits, { bundle: 'esim_5GB_30D_EU', quantity: 1 }), 'TEST_ESIMS_PER_DAY', 10);
  });

  it('counts orders on a test clock and orders paid from a simulated balance too', async () => {
    const caller = newCaller('test');
    const clock = (await createClock(caller)).body as TestClock;
    const onClock = await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 7, test_clock: clock.id });
    expect(onClock.status, JSON.stringify(onClock.body)).toBe(201);
    expect((onClock.body as Order).esims.map((esim: Esim) => esim.test_clock)).toEqual(Array(7).fill(clock.id));
    const balance = await request(h.app).post('/v1/test/balance').set(headersFor(caller)).set('Idempotency-Key', key()).send({ available_cents: 1_000_000 });
    expect(balance.status, JSON.stringify(balance.body)).toBe(200);
    expectQuotaExceeded(await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 4 }), 'TEST_ESIMS_PER_DAY', 10);
    expect((await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 3 })).status).toBe(201);
    expect(await esimsOf(caller)).toBe(10);
  });
});

describe('metadata limits (Stripe’s: 50 keys, keys of 40 characters, values of 500)', () => {
  it.each([
    ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])), 'at most 50 keys'],
    ['a key of 41 characters', { ['k'.repeat(41)]: 'v' }, 'at most 40 characters'],
    ['a value of 501 characters', { note: 'v'.repeat(501) }, 'at most 500 characters'],
  ])('refuses %s with a message naming the limit', async (_name, metadata, limit) => {
    const res = await h.order(newCaller('test'), { bundle: 'esim_5GB_30D_EU', metadata });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_parameter');
    expect(res.body.error.message).toContain(limit);
  });
});
