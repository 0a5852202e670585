import { afterAll, beforeAll, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

// A ten-minute poll: anything delivered in this test was woken by the commit that queued it.
const TEN_MINUTES = '600000';

let h: Harness;
let receiver: Receiver;
beforeAll(async () => {
  h = await Harness.create({ DELIVERY_POLL_INTERVAL_MS: TEN_MINUTES });
  await h.start();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

it('a stored event is delivered at once, without waiting for the delivery worker’s poll', async () => {
  const me = caller(newAccount(), 'test');
  const endpoint = await h.endpoint(me, receiver.url('/woken'));
  receiver.secret('/woken', endpoint.secret);
  const started = Date.now();
  const event = await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
  await eventually(() => receiver.received.find((r) => r.id === event.id), 10_000, 'the delivery');
  expect(Date.now() - started).toBeLessThan(10_000);
});

it('a replay is delivered at once too', async () => {
  const me = caller(newAccount(), 'test');
  const event = await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
  await eventually(async () => (await h.get(me, '/v1/events')).body.data.length === 1, 10_000, 'the stored event');
  const endpoint = await h.endpoint(me, receiver.url('/replayed'));
  receiver.secret('/replayed', endpoint.secret);
  const replay = await h.post(me, '/v1/events/replay', { event: event.id });
  expect(replay.status).toBe(200);
  await eventually(() => receiver.received.find((r) => r.path === '/replayed' && r.id === event.id), 10_000, 'the replayed delivery');
});
