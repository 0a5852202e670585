import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

const DAY = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY);

/**
 * The test data retention (record 0213): events are stored under an instance that keeps
 * everything 60 days, then an instance with TEST_DATA_RETENTION_MS of 7 days and a batch of 2
 * prunes old test events with their deliveries and attempts, and leaves young test events and live
 * events of any age within EVENT_RETENTION_MS.
 */
let receiver: Receiver;
let h: Harness;
beforeAll(async () => {
  receiver = await Receiver.start();
  h = await Harness.create();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

const count = async (table: string, where: Record<string, string>) =>
  Number((await h.db.knex(`notifications.${table}`).where(where).count<{ n: string }[]>({ n: '*' }))[0]?.n);

describe('the test data retention of events', () => {
  it('prunes test events older than TEST_DATA_RETENTION_MS with their deliveries, in batches; young test events and live events stay', async () => {
    await h.start({ EVENT_RETENTION_MS: String(60 * DAY), TEST_DATA_RETENTION_MS: String(60 * DAY) });
    const account = newAccount();
    const test = caller(account, 'test');
    const live = caller(account, 'live');
    const endpoint = await h.endpoint(test, receiver.url('/test-retention'));
    receiver.secret('/test-retention', endpoint.secret);
    const old: { id: string }[] = [];
    for (const days of [8, 9, 10]) old.push(await h.publish(test, 'esim.installed', { object: esim('installed'), previous_state: 'released' }, daysAgo(days)));
    const young = await h.publish(test, 'esim.activated', { object: esim('active'), previous_state: 'installed' }, daysAgo(6));
    const liveOld = await h.publish(live, 'esim.installed', { object: esim('installed'), previous_state: 'released' }, daysAgo(20));
    await eventually(async () => (await count('attempts', { endpoint_id: endpoint.id })) === 4, 10_000, 'the test deliveries recorded');
    await eventually(async () => (await count('events', { id: liveOld.id })) === 1, 10_000, 'the live event stored');

    for (const instance of [...h.instances]) await h.stop(instance);
    await h.start({
      EVENT_RETENTION_MS: String(60 * DAY),
      TEST_DATA_RETENTION_MS: String(7 * DAY),
      RETENTION_SWEEP_INTERVAL_MS: '1',
      RETENTION_BATCH_SIZE: '2',
    });
    await eventually(
      async () => {
        for (const event of old) if ((await count('events', { id: event.id })) !== 0) return false;
        return true;
      },
      10_000,
      'the old test events pruned',
    );
    for (const event of old) {
      expect(await count('deliveries', { event_id: event.id })).toBe(0);
      expect(await count('attempts', { event_id: event.id })).toBe(0);
    }
    expect(await count('events', { id: young.id })).toBe(1);
    expect(await count('attempts', { event_id: young.id })).toBe(1);
    expect(await count('events', { id: liveOld.id })).toBe(1);
    for (const instance of [...h.instances]) await h.stop(instance);
  });
});
