import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordSuccesses } from '../src/db/recorded-successes.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount, type Caller } from './support/harness.ts';
import { HeldReceiver } from './support/held-receiver.ts';

/**
 * Successes are recorded together (record 0195): the attempts that end at once are written by
 * one statement, which ends each delivery whose claim is still held, writes each attempt once
 * and clears the endpoint's failure streak and circuit; and one endpoint may have as many
 * attempts under way as its account by default.
 */
let h: Harness;
let receiver: HeldReceiver;
beforeAll(async () => {
  receiver = await HeldReceiver.start();
  h = await Harness.create({ WEBHOOK_TIMEOUT_MS: '30000', DELIVERY_LEASE_MS: '60000' });
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const released = () => ({ object: esim('released'), previous_state: null });

async function deliveries(who: Caller): Promise<{ status: string; claim_token: string | null }[]> {
  return h.db
    .knex('notifications.deliveries as d')
    .join('notifications.endpoints as e', 'e.id', 'd.endpoint_id')
    .where({ 'e.account_id': who.accountId })
    .select('d.status', 'd.claim_token');
}

describe('recorded successes', () => {
  it('12 attempts under way to one endpoint by default; ending together, each is recorded once, and the endpoint’s failure streak and circuit are cleared', async () => {
    await h.start();
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, receiver.url('/together'));
    // A streak and a half-open circuit that a success must clear.
    await h.db
      .knex('notifications.endpoints')
      .where({ id: endpoint.id })
      .update({ failing_since: new Date(Date.now() - 60_000), timeouts_in_a_row: 2, circuit_opens: 1 });
    for (let i = 0; i < 12; i += 1) await h.publish(me, 'esim.released', released());
    await eventually(() => receiver.now('/together') === 12, 10_000, 'twelve attempts under way to the one endpoint');
    receiver.open('/together');
    await eventually(async () => (await deliveries(me)).every((row) => row.status === 'succeeded'), 10_000, 'every delivery succeeded');
    expect((await deliveries(me)).every((row) => row.claim_token === null)).toBe(true);
    const attempts = await h.db.knex('notifications.attempts').where({ endpoint_id: endpoint.id }).select('status', 'attempt');
    expect(attempts).toHaveLength(12);
    expect(attempts.every((row: { status: string; attempt: number }) => row.status === 'succeeded' && row.attempt === 1)).toBe(true);
    const row = (await h.db.knex('notifications.endpoints').where({ id: endpoint.id }).first()) as Record<string, unknown>;
    expect(row).toMatchObject({ failing_since: null, timeouts_in_a_row: 0, circuit_opens: 0, circuit_open_until: null, disabled: false });
  });

  it('one statement for several: a delivery whose claim is no longer held is not moved on, but its attempt is written; a second copy is written once', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, receiver.url('/direct'));
    // No worker runs: the deliveries are written here, as claimed by a worker whose token is `theirs`.
    for (const instance of [...h.instances]) await h.stop(instance);
    const rows: { id: string; event_id: string }[] = [];
    for (const n of [1, 2]) {
      const eventId = `evt_direct_${me.accountId}_${n}`;
      await h.db.knex('notifications.events').insert({
        id: eventId,
        account_id: me.accountId,
        environment: 'test',
        type: 'esim.released',
        created_at: 1,
        occurred_at: new Date(),
        envelope: JSON.stringify({ id: eventId }),
      });
      const [row] = await h.db
        .knex('notifications.deliveries')
        .insert({
          event_id: eventId,
          endpoint_id: endpoint.id,
          status: 'pending',
          attempts: 1,
          claim_token: 'theirs',
          next_attempt_at: new Date(Date.now() + 60_000),
        })
        .returning<{ id: string; event_id: string }[]>(['id', 'event_id']);
      if (row) rows.push({ id: String(row.id), event_id: row.event_id });
    }
    const at = new Date();
    const record = (row: { id: string; event_id: string }, token: string, id: string) => ({
      id,
      claim: {
        deliveryId: row.id,
        token,
        attempt: 1,
        endpoint: { id: endpoint.id, url: receiver.url('/direct'), sealedSecret: '', environment: 'test' as const },
        event: { id: row.event_id, type: 'esim.released' } as never,
        traceContext: {},
      },
      succeeded: true,
      statusCode: 204,
      error: null,
      durationMs: 3,
      nextAttemptAt: null,
      disableReason: undefined,
      timedOut: false,
      at,
    });
    const [mine, stale] = rows as [{ id: string; event_id: string }, { id: string; event_id: string }];
    await recordSuccesses(h.db.knex, [record(mine, 'theirs', 'wha_1'), record(stale, 'another', 'wha_2'), record(mine, 'theirs', 'wha_3')]);
    const after = await h.db.knex('notifications.deliveries').whereIn('id', [mine.id, stale.id]).orderBy('id').select('id', 'status', 'claim_token');
    expect(after).toEqual([
      { id: mine.id, status: 'succeeded', claim_token: null },
      { id: stale.id, status: 'pending', claim_token: 'theirs' },
    ]);
    const written = await h.db.knex('notifications.attempts').whereIn('delivery_id', [mine.id, stale.id]).orderBy('id').select('id');
    expect(written.map((w: { id: string }) => w.id)).toEqual(['wha_1', 'wha_2']);
  });
});
