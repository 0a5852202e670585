import type { Esim } from '@connectivity/contracts';
import { assertNoViolations } from '@connectivity/fake-suppliers';
import { createLogger, type InternalEvent } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExpiringNotifier } from '../src/workers/expiring-notifier.ts';
import { startLiveInventory, type LiveHarness } from './live-vendors.ts';
import { eventually } from './support.ts';

/**
 * `esim.expiring` for live eSIMs (record 0236), on each vendor's fake through catalogue's adapter: eSIM
 * Go sends no notice, so our notifier sends both marks once the first use gave the eSIM an `expires_at`;
 * Airalo's own `3days`/`1days` notices become the event, and our notifier leaves its eSIMs alone.
 */
const DAY = 86_400;
const logger = createLogger({ name: 'live-expiring-test', level: 'silent' });

/** One pass of a notifier whose clock is `seconds` ahead of ours; resolves with how many it sent. */
async function notifyAhead(h: LiveHarness, seconds: number): Promise<number> {
  const notifier = startExpiringNotifier({ knex: h.db.knex, logger, intervalMs: 3_600_000, batchSize: 50, now: () => new Date(Date.now() + seconds * 1000) });
  try {
    return await notifier.sweep();
  } finally {
    await notifier.stop();
  }
}

/**
 * Passes of that notifier until one sends: a pass skips a row another transaction holds (here the
 * reconciler, every 300 ms, and the reports poller), leaving it to the next pass, as a second instance
 * would. Resolves with what the sending pass sent, so a pass that sent two would still fail.
 */
const notifyAheadOnceDue = (h: LiveHarness, seconds: number): Promise<number> =>
  eventually(async () => {
    const sent = await notifyAhead(h, seconds);
    expect(sent).toBeGreaterThan(0);
    return sent;
  }, 5_000);

const expiring = (h: LiveHarness, esimId: string) =>
  h.events.filter((e: InternalEvent) => e.type === 'esim.expiring' && (e.data as { object?: { id?: string } }).object?.id === esimId);
const marks = (h: LiveHarness, esimId: string) => expiring(h, esimId).map((e) => (e.data as { days_left: number }).days_left);

describe('esim.expiring for an eSIM Go eSIM', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('esim-go', { SUPPLIER_RECONCILE_INTERVAL_MS: '300', SUPPLIER_RECONCILE_BATCH: '5' });
  });
  afterAll(async () => {
    if (h) assertNoViolations(h.fake);
    await h?.close();
  });

  it('comes from our notifier after the first use, 3 days then 1 day before the vendor’s end, once each', async () => {
    const caller = await h.account();
    const [esim] = (await h.buy(caller, 1)).esims as [Esim];
    // No expires_at before the first use: nothing to announce however far ahead.
    expect(await notifyAhead(h, 30 * DAY)).toBe(0);

    await h.fake.control.install(esim.iccid);
    await h.fake.control.attach(esim.iccid);
    await h.fake.control.useData(esim.iccid, 1_000);
    await eventually(() => expect(h.eventsOf(esim.id)).toEqual(['esim.released', 'esim.installed', 'esim.activated']), 20_000);

    expect(await notifyAhead(h, 3 * DAY)).toBe(0);
    expect(await notifyAheadOnceDue(h, 4 * DAY + 600)).toBe(1);
    expect(await notifyAhead(h, 4 * DAY + 600)).toBe(0);
    expect(await notifyAheadOnceDue(h, 6 * DAY + 600)).toBe(1);
    expect(await notifyAhead(h, 6 * DAY + 900)).toBe(0);
    await eventually(() => expect(marks(h, esim.id)).toEqual([3, 1]), 10_000);
    expect(expiring(h, esim.id)[0]).toMatchObject({ environment: 'live', account_id: caller.accountId, data: { object: { id: esim.id, state: 'active' } } });
  });
});

describe('esim.expiring for an Airalo eSIM', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('airalo', { SUPPLIER_RECONCILE_INTERVAL_MS: '300', SUPPLIER_RECONCILE_BATCH: '5' });
  });
  afterAll(async () => {
    if (h) assertNoViolations(h.fake);
    await h?.close();
  });

  it('comes from Airalo’s 3days and 1days notices, once each; our notifier sends none for it', async () => {
    const caller = await h.account();
    const [esim] = (await h.buy(caller, 1)).esims as [Esim];
    await h.fake.control.install(esim.iccid);
    await h.fake.control.attach(esim.iccid);
    await eventually(() => expect(h.eventsOf(esim.id)).toEqual(['esim.released', 'esim.installed', 'esim.activated']), 20_000);

    // Airalo sends its own notices: our clock, past both marks, leaves the eSIM to them.
    expect(await notifyAhead(h, 6 * DAY + 600)).toBe(0);

    await h.fake.control.travel((4 * DAY + 600) * 1000);
    await eventually(() => expect(marks(h, esim.id)).toEqual([3]), 20_000);
    await h.fake.control.travel(2 * DAY * 1000);
    await eventually(() => expect(marks(h, esim.id)).toEqual([3, 1]), 20_000);
    expect(expiring(h, esim.id)[1]).toMatchObject({ environment: 'live', data: { days_left: 1, object: { id: esim.id, state: 'active' } } });
    // Reconciliation keeps reading the eSIM: no notice is sent twice.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(marks(h, esim.id)).toEqual([3, 1]);
  });
});
