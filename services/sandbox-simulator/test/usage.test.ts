import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, UsageWorld, eventually, identity } from './support.ts';

const GB = 1_000_000_000;

let world: UsageWorld;
beforeAll(async () => {
  world = await UsageWorld.start();
});
afterAll(async () => {
  await world?.close();
});

/** The event types published for one eSIM, once `count` of them have arrived. */
const typesOf = (esimId: string, count: number) =>
  eventually(() => {
    const types = world.eventsOf(esimId).map((e) => e.type);
    expect(types.length).toBeGreaterThanOrEqual(count);
    return types;
  });

const expectError = (res: { status: number; body: { error?: unknown } }, status: number, code: string, param?: string) => {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, link: `${BASE_URL}/v1/errors/${code}`, message: expect.any(String) });
  if (param === undefined) expect(res.body.error).not.toHaveProperty('param');
  else expect(res.body.error).toMatchObject({ param });
};

describe('POST /v1/test/usage on the real inventory', () => {
  it('installs and activates a released eSIM on its first usage and answers the eSIM after it', async () => {
    const me = identity('test');
    const bought = await world.buy(me, 'esim_1GB_7D_US');
    expect(bought.state).toBe('released');

    const res = await world.usage(me, bought.id, 1_234);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'esim', id: bought.id, state: 'active', data_used_bytes: 1_234, data_limit_bytes: GB });
    expect(res.body).toEqual(await world.read(me, bought.id));
    expect(await typesOf(bought.id, 3)).toEqual(['esim.released', 'esim.installed', 'esim.activated']);
  });

  it('takes an ICCID as well as an id', async () => {
    const me = identity('test');
    const bought = await world.buy(me, 'esim_1GB_7D_US');
    const res = await world.usage(me, bought.iccid, 10);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: bought.id, iccid: bought.iccid, data_used_bytes: 10 });
  });

  it('fires 50, 80 and 100 percent once each, clamps at the limit and expires the eSIM', async () => {
    const me = identity('test');
    const bought = await world.buy(me, 'esim_1GB_7D_US');
    expect((await world.usage(me, bought.id, 0.5 * GB)).body).toMatchObject({ state: 'active', data_used_bytes: 0.5 * GB });
    const last = await world.usage(me, bought.id, 3 * GB);
    expect(last.status).toBe(200);
    expect(last.body).toMatchObject({ state: 'expired', data_used_bytes: GB, data_limit_bytes: GB });

    expect(await typesOf(bought.id, 7)).toEqual([
      'esim.released',
      'esim.installed',
      'esim.activated',
      'esim.usage.threshold',
      'esim.usage.threshold',
      'esim.usage.threshold',
      'esim.expired',
    ]);
    const thresholds = world.eventsOf(bought.id).filter((e) => e.type === 'esim.usage.threshold');
    expect(thresholds.map((e) => e.data)).toEqual([
      expect.objectContaining({ threshold_percent: 50, data_used_bytes: 0.5 * GB, data_limit_bytes: GB }),
      expect.objectContaining({ threshold_percent: 80, data_used_bytes: GB, data_limit_bytes: GB }),
      expect.objectContaining({ threshold_percent: 100, data_used_bytes: GB, data_limit_bytes: GB }),
    ]);

    // The limit was reached: the eSIM is expired and takes no more usage.
    expectError(await world.usage(me, bought.id, 1), 400, 'invalid_parameter', 'esim');
    expect((await world.read(me, bought.id)).data_used_bytes).toBe(GB);
  });

  it('refuses usage on a suspended eSIM, and on one moved to expired, with invalid_parameter on esim', async () => {
    const me = identity('test');
    const suspended = await world.buy(me, 'esim_1GB_7D_US');
    await world.move(me, suspended.id, 'installed', 'active', 'suspended');
    const refused = await world.usage(me, suspended.id, 1);
    expectError(refused, 400, 'invalid_parameter', 'esim');
    expect(refused.body.error.message).toContain('suspended');

    const expired = await world.buy(me, 'esim_1GB_7D_US');
    await world.move(me, expired.id, 'expired');
    expectError(await world.usage(me, expired.id, 1), 400, 'invalid_parameter', 'esim');

    for (const id of [suspended.id, expired.id]) expect((await world.read(me, id)).data_used_bytes).toBe(0);
  });

  it('expires an eSIM whose validity has ended instead of using it', async () => {
    const me = identity('test');
    const bought = await world.buy(me, 'esim_1GB_7D_US');
    await world.usage(me, bought.id, 1);
    // Stands in for the passing of the bundle's 7 days: inventory's clock is the real one.
    await world.db
      .knex('inventory.esims')
      .where({ id: bought.id })
      .update({ expires_at: Math.floor(Date.now() / 1000) - 1 });

    expectError(await world.usage(me, bought.id, 1_000), 400, 'invalid_parameter', 'esim');
    expect(await world.read(me, bought.id)).toMatchObject({ state: 'expired', data_used_bytes: 1 });
    expect(await typesOf(bought.id, 4)).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.expired']);
  });

  it('answers 404 on esim for an unknown eSIM and for another account’s', async () => {
    const me = identity('test');
    expectError(await world.usage(me, 'esim_01jzzzzzzzzzzzzzzzzzzzzzzz', 1), 404, 'resource_not_found', 'esim');
    expectError(await world.usage(me, '8988299000000000000', 1), 404, 'resource_not_found', 'esim');

    const them = identity('test');
    const theirs = await world.buy(them, 'esim_1GB_7D_US');
    expectError(await world.usage(me, theirs.id, 1), 404, 'resource_not_found', 'esim');
    expectError(await world.usage(me, theirs.iccid, 1), 404, 'resource_not_found', 'esim');
    expect((await world.read(them, theirs.id)).data_used_bytes).toBe(0);
  });

  it("answers 403 test_key_live_resource on esim for the account's own live eSIM", async () => {
    const live = identity('live');
    await world.fundLive(live.accountId);
    const bought = await world.buy(live, 'esim_1GB_7D_GB_V2');
    expect(bought.simulated).toBe(false);

    const sameAccountTestKey = identity('test', live.accountId);
    expectError(await world.usage(sameAccountTestKey, bought.id, 1), 403, 'test_key_live_resource', 'esim');
    expect((await world.read(live, bought.id)).data_used_bytes).toBe(0);
  });

  it('refuses live keys with 403 live_key_test_resource, on test and live eSIMs alike', async () => {
    const live = identity('live');
    await world.fundLive(live.accountId);
    const liveEsim = await world.buy(live, 'esim_1GB_7D_GB_V2');
    const testEsim = await world.buy(identity('test', live.accountId), 'esim_1GB_7D_US');
    for (const esim of [liveEsim, testEsim]) {
      expectError(await world.usage(live, esim.id, 1), 403, 'live_key_test_resource');
    }
    expect((await world.read(live, liveEsim.id)).data_used_bytes).toBe(0);
    expect((await world.read(identity('test', live.accountId), testEsim.id)).data_used_bytes).toBe(0);
  });

  it.each([
    [{ esim: 'ESIM' }, 'missing_parameter', 'bytes'],
    [{ esim: 'ESIM', bytes: 0 }, 'invalid_parameter', 'bytes'],
    [{ esim: 'ESIM', bytes: -5 }, 'invalid_parameter', 'bytes'],
    [{ esim: 'ESIM', bytes: 1.5 }, 'invalid_parameter', 'bytes'],
    [{ esim: 'ESIM', bytes: '10' }, 'invalid_parameter', 'bytes'],
    [{ esim: 'ESIM', bytes: 10, extra: 1 }, 'invalid_parameter', 'extra'],
    [{ bytes: 10 }, 'missing_parameter', 'esim'],
    [{ esim: 7, bytes: 10 }, 'invalid_parameter', 'esim'],
    [{ esim: '', bytes: 10 }, 'invalid_parameter', 'esim'],
  ])('validates %j: %s on %s, and records no usage', async (body, code, param) => {
    const me = identity('test');
    const bought = await world.buy(me, 'esim_1GB_7D_US');
    const withId = 'esim' in body && body.esim === 'ESIM' ? { ...body, esim: bought.id } : body;
    expectError(await world.simulator.post(me, '/v1/test/usage', withId), 400, code, param);
    expect(await world.read(me, bought.id)).toMatchObject({ state: 'released', data_used_bytes: 0 });
  });
});
