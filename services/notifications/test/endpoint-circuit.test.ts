import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLOSED, cooldownMs, nextCircuit, type CircuitPolicy } from '../src/domain/endpoint-circuit.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { SilentListener } from './support/held-receiver.ts';

describe('the circuit of an endpoint (domain)', () => {
  const policy: CircuitPolicy = { threshold: 3, cooldownMs: 1_000, maxCooldownMs: 3_000 };
  const at = (ms: number) => new Date(1_000_000 + ms);

  it('opens after the threshold of timeouts in a row; anything but a timeout closes it', () => {
    let state = CLOSED;
    state = nextCircuit(state, true, at(0), policy);
    state = nextCircuit(state, true, at(10), policy);
    expect(state).toEqual({ timeoutsInARow: 2, openUntil: null, opens: 0 });
    expect(nextCircuit(state, false, at(20), policy)).toEqual(CLOSED);
    state = nextCircuit(state, true, at(20), policy);
    expect(state).toEqual({ timeoutsInARow: 3, openUntil: at(1_020), opens: 1 });
    // An attempt begun before it opened, ending while it is open, changes only the count.
    expect(nextCircuit(state, true, at(500), policy)).toEqual({ timeoutsInARow: 4, openUntil: at(1_020), opens: 1 });
  });

  it('reopens for twice as long when a probe times out, up to the maximum', () => {
    let state = nextCircuit({ timeoutsInARow: 2, openUntil: null, opens: 0 }, true, at(0), policy);
    state = nextCircuit(state, true, at(2_000), policy);
    expect(state.openUntil).toEqual(at(4_000));
    state = nextCircuit(state, true, at(5_000), policy);
    expect(state.openUntil).toEqual(at(8_000));
    expect(cooldownMs(policy, 10)).toBe(3_000);
    expect(nextCircuit(state, false, at(9_000), policy)).toEqual(CLOSED);
  });
});

/**
 * The circuit at work: an endpoint whose host never answers times out three times in a row (one
 * attempt at a time, 200 ms each), and its deliveries then wait; nothing is sent to it until the
 * cooldown is over, and what waited is not counted as an attempt.
 */
describe('the circuit of an endpoint (delivery)', () => {
  let h: Harness;
  let host: SilentListener;
  beforeAll(async () => {
    host = await SilentListener.start();
    h = await Harness.create({
      WEBHOOK_TIMEOUT_MS: '20000',
      DELIVERY_LEASE_MS: '60000',
      WEBHOOK_FIRST_BYTE_TIMEOUT_MS: '200',
      WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '1',
      WEBHOOK_CIRCUIT_THRESHOLD: '3',
      WEBHOOK_CIRCUIT_COOLDOWN_MS: '2000',
      WEBHOOK_RETRY_SCHEDULE_MS: '50,50,50,50,50,50,50,50,50',
    });
    await h.start();
  });
  afterAll(async () => {
    await host?.close();
    await h?.close();
  });

  it('holds back the deliveries of an endpoint that keeps timing out, without counting them as attempts, then probes it and delivers', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, `http://127.0.0.1:${host.port}/circuit`);
    for (let i = 0; i < 5; i += 1) await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
    const circuit = async () =>
      (await h.db.knex('notifications.endpoints').select('timeouts_in_a_row', 'circuit_open_until', 'circuit_opens').where({ id: endpoint.id }).first()) as {
        timeouts_in_a_row: number;
        circuit_open_until: Date | null;
        circuit_opens: number;
      };

    const opened = await eventually(async () => {
      const state = await circuit();
      return state.circuit_open_until !== null && state;
    }, 10_000);
    expect(opened).toMatchObject({ timeouts_in_a_row: 3, circuit_opens: 1 });
    const sent = host.accepted;
    expect(sent).toBe(3);
    // Nothing goes to it while it is open.
    const openUntil = new Date(opened.circuit_open_until!).getTime();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, openUntil - Date.now() - 300)));
    expect(host.accepted).toBe(sent);

    host.answer();
    const pending = async () => {
      const [row] = await h.db.knex('notifications.deliveries').where({ endpoint_id: endpoint.id, status: 'pending' }).count<{ n: string }[]>({ n: '*' });
      return Number(row?.n ?? 0);
    };
    await eventually(async () => (await pending()) === 0, 15_000, 'every delivery after the cooldown');
    expect(await circuit()).toEqual({ timeouts_in_a_row: 0, circuit_open_until: null, circuit_opens: 0 });

    // Every attempt made was a request the host received, and each delivery's attempts are numbered 1, 2, ... with no gap.
    const attempts = (await h.db.knex('notifications.attempts').where({ endpoint_id: endpoint.id }).orderBy('id')) as {
      delivery_id: string;
      attempt: number;
      status: string;
    }[];
    expect(attempts).toHaveLength(host.accepted);
    const byDelivery = new Map<string, number[]>();
    for (const a of attempts) byDelivery.set(String(a.delivery_id), [...(byDelivery.get(String(a.delivery_id)) ?? []), a.attempt]);
    expect(byDelivery.size).toBe(5);
    for (const numbers of byDelivery.values()) expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    // Three timed out before the circuit opened; the probe and the rest succeeded: 5 + at most 3 attempts.
    expect(attempts.filter((a) => a.status === 'failed')).toHaveLength(3);
    expect(attempts.filter((a) => a.status === 'succeeded')).toHaveLength(5);
  });

  it('closes when its owner changes the URL or enables the endpoint: it is tried again at once', async () => {
    const me = caller(newAccount(), 'test');
    const quiet = await SilentListener.start();
    try {
      const endpoint = await h.endpoint(me, `http://127.0.0.1:${quiet.port}/changed`);
      for (let i = 0; i < 3; i += 1) await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
      const openUntil = async () =>
        ((await h.db.knex('notifications.endpoints').where({ id: endpoint.id }).first()) as { circuit_open_until: Date | null }).circuit_open_until;
      await eventually(async () => (await openUntil()) !== null, 10_000, 'the circuit open');
      const patched = await h.patch(me, `/v1/webhooks/${endpoint.id}`, { url: `http://127.0.0.1:${quiet.port}/fixed` });
      expect(patched.status).toBe(200);
      expect(await openUntil()).toBeNull();
    } finally {
      await quiet.close();
    }
  });
});
