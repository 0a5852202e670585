import type { Esim } from '@connectivity/contracts';
import { createLogger } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExpirySweeper } from '../src/workers/expiry-sweeper.ts';
import { eventTypesOf, eventually, newCaller, startInventory, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});

const logger = createLogger({ name: 'sweeper-test', level: 'silent' });
const DAY_MS = 86_400_000;

/** What an inventory instance runs, with a clock `days` ahead. */
const sweeperAt = (days: number) =>
  startExpirySweeper({
    knex: h.db.knex,
    logger,
    intervalMs: 3_600_000,
    batchSize: 7,
    now: () => new Date(Date.now() + days * DAY_MS),
  });

describe('the expiry sweeper', () => {
  it('expires each eSIM past its validity exactly once, even with two instances sweeping', async () => {
    const caller = newCaller('test');
    const week: Esim[] = [];
    for (let i = 0; i < 3; i += 1) week.push(...((await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 10 })).body.esims as Esim[]));
    const month = (await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 2 })).body.esims as Esim[];
    // Some were already cancelled or in use: they expire from where they are, or not at all.
    const [cancelled, inUse, suspended] = week;
    if (!cancelled || !inUse || !suspended) throw new Error('order too small');
    await h.patch(caller, cancelled.id, 'expired');
    await h.usage(caller, inUse.id, 1_000);
    await h.usage(caller, suspended.id, 1_000);
    await h.patch(caller, suspended.id, 'suspended');

    const a = sweeperAt(8);
    const b = sweeperAt(8);
    try {
      const counts = await Promise.all([a.sweep(), b.sweep(), a.sweep(), b.sweep()]);
      expect(counts.reduce((sum, n) => sum + n, 0)).toBe(29);
      expect(await a.sweep()).toBe(0);
    } finally {
      await a.stop();
      await b.stop();
    }

    for (const esim of week) {
      const after = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
      expect(after.state).toBe('expired');
      // The one cancelled before its validity ended says so; the others ran out of time.
      expect(after.expired_reason).toBe(esim.id === cancelled.id ? 'cancelled' : 'validity_ended');
    }
    for (const esim of month) expect((await h.get(caller, `/v1/esim/${esim.id}`)).body).toMatchObject({ state: 'released', expired_reason: null });

    await eventually(() => {
      for (const esim of week) expect(h.eventsOf(esim.id).filter((e) => e.type === 'esim.expired')).toHaveLength(1);
    });
    expect(await eventTypesOf(h, inUse.id, 4)).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.expired']);
    const suspendedExpiry = h.eventsOf(suspended.id).at(-1);
    expect(suspendedExpiry).toMatchObject({
      type: 'esim.expired',
      data: { previous_state: 'suspended', object: { state: 'expired', expired_reason: 'validity_ended' } },
    });
    const plain = h.eventsOf(week[5]?.id ?? '').at(-1);
    expect(plain?.data).toMatchObject({ previous_state: 'released', object: { id: week[5]?.id, state: 'expired' } });
  });

  it('leaves eSIMs whose validity has not ended', async () => {
    const caller = newCaller('test');
    const esim = (await h.order(caller, { bundle: 'esim_5GB_30D_EU' })).body.esims[0] as Esim;
    const sweeper = sweeperAt(29);
    try {
      await sweeper.sweep();
    } finally {
      await sweeper.stop();
    }
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.state).toBe('released');
  });
});
