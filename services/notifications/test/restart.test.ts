import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

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
afterEach(async () => {
  for (const instance of [...h.instances]) await h.stop(instance);
});

describe('several notifications instances and restarts', () => {
  it('loses nothing when notifications restarts in the middle of a retry schedule', async () => {
    {
      const first = await h.start({ WEBHOOK_RETRY_SCHEDULE_MS: '400,400,400' });
      const me = caller(newAccount(), 'test');
      const endpoint = await h.endpoint(me, receiver.url('/restart'));
      receiver.secret('/restart', endpoint.secret);
      receiver.reply('/restart', (n) => ({ status: n === 1 ? 500 : 204 }));
      const failing = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
      await eventually(() => receiver.hits('/restart').length === 1, 10_000, 'the first, failing attempt');

      // Stop before the retry is due; an event published while no instance runs waits on the bus.
      await h.stop(first);
      const whileDown = await h.publish(me, 'esim.suspended', { object: esim('suspended'), previous_state: 'active' });
      await h.start({ WEBHOOK_RETRY_SCHEDULE_MS: '400,400,400' });

      await eventually(() => receiver.hits('/restart').filter((r) => r.id === failing.id).length === 2, 10_000, 'the retry');
      await eventually(() => receiver.hits('/restart').some((r) => r.id === whileDown.id), 10_000, 'the event published while down');
      // The receiver answers before the attempt is recorded: wait for the record too.
      const forFailing = await eventually(
        async () => {
          const res = await h.get(me, `/v1/webhooks/${endpoint.id}/deliveries`);
          const list = (res.body.data as { event: string; attempt: number; status: string }[])
            .filter((a) => a.event === failing.id)
            .map((a) => [a.attempt, a.status]);
          return list.length === 2 && list;
        },
        10_000,
        'both attempts recorded',
      );
      expect(forFailing.sort()).toEqual([
        [1, 'failed'],
        [2, 'succeeded'],
      ]);
      expect(receiver.rejected).toEqual([]);
    }
  });

  it('never delivers the same attempt twice with two instances on one database and bus', async () => {
    {
      await h.start({ DELIVERY_CONCURRENCY: '2' });
      await h.start({ DELIVERY_CONCURRENCY: '2' });
      const me = caller(newAccount(), 'test');
      const endpoint = await h.endpoint(me, receiver.url('/pair'));
      receiver.secret('/pair', endpoint.secret);
      const ids = new Set<string>();
      for (let i = 0; i < 20; i += 1) {
        ids.add((await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' })).id);
      }
      await eventually(
        async () => {
          const rows = await h.db.knex('notifications.deliveries').where({ endpoint_id: endpoint.id, status: 'succeeded' }).count<{ n: string }[]>({ n: '*' });
          return Number(rows[0]?.n) === 20;
        },
        20_000,
        'twenty successful deliveries',
      );
      const hits = receiver.hits('/pair');
      expect(new Set(hits.map((r) => r.id))).toEqual(ids);
      expect(hits).toHaveLength(20);
      const attempts = await h.db.knex('notifications.attempts').where({ endpoint_id: endpoint.id }).count<{ n: string }[]>({ n: '*' });
      expect(Number(attempts[0]?.n)).toBe(20);
    }
  });

  it('disables an endpoint whose every delivery has failed for the configured time', async () => {
    {
      await h.start({ WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100,100,100,100', WEBHOOK_DISABLE_AFTER_MS: '250' });
      const me = caller(newAccount(), 'test');
      const endpoint = await h.endpoint(me, receiver.url('/always-down'));
      receiver.secret('/always-down', endpoint.secret);
      receiver.reply('/always-down', () => ({ status: 500 }));
      await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
      const disabled = await eventually(async () => {
        const res = await h.get(me, `/v1/webhooks/${endpoint.id}`);
        const body = res.body as { disabled: boolean; disabled_reason: string | null };
        return body.disabled && body;
      }, 10_000);
      expect(disabled.disabled_reason).toContain('failed for 250 ms');
      const reenabled = await h.patch(me, `/v1/webhooks/${endpoint.id}`, { disabled: false });
      expect(reenabled.body).toMatchObject({ disabled: false, disabled_reason: null });
    }
  });
});
