import { randomUUID } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { runMigrations, type Database } from '@connectivity/platform';
import { createTestDatabase } from '@connectivity/platform/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { claimDue, type ClaimOptions } from '../src/db/delivery-claims.ts';
import { migrations } from '../src/db/migrations/index.ts';

/**
 * The fair claim on its own, on rows written directly: the same picks whether the endpoints with
 * due work are read from a few due rows or found by the skip scan a backlog takes (`dueSample`
 * forces it here).
 */
let db: Database;
beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations(db.knex, migrations);
  await db.knex('notifications.events').insert({
    id: 'evt_claims0000000000000000000',
    account_id: 'acct_any',
    environment: 'test',
    type: 'esim.released',
    created_at: 0,
    occurred_at: new Date(),
    envelope: JSON.stringify({ id: 'evt_claims0000000000000000000' }),
  });
});
afterAll(async () => {
  await db?.close();
});
beforeEach(async () => {
  await db.knex('notifications.deliveries').delete();
  await db.knex('notifications.delivery_turns').delete();
  await db.knex('notifications.endpoints').delete();
});

const ago = (ms: number) => new Date(Date.now() - ms);
let endpointCount = 0;

async function endpoint(accountId: string, changes: Record<string, unknown> = {}): Promise<string> {
  endpointCount += 1;
  const id = `we_claims${String(endpointCount).padStart(19, '0')}`;
  await db.knex('notifications.endpoints').insert({
    id,
    account_id: accountId,
    environment: 'test',
    url: `http://127.0.0.1:9/${id}`,
    enabled_events: JSON.stringify(['*']),
    secret_sealed: 'sealed',
    created_at: 0,
    updated_at: 0,
    ...changes,
  });
  return id;
}

/** `count` due deliveries to the endpoint, the first due `msAgo` ago and each next 1 ms later. */
async function due(endpointId: string, count: number, msAgo: number, extra: Record<string, unknown> = {}): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({
    event_id: 'evt_claims0000000000000000000',
    endpoint_id: endpointId,
    status: 'pending',
    next_attempt_at: ago(msAgo - i),
    ...extra,
  }));
  await db.knex('notifications.deliveries').insert(rows);
}

const claimWith = (options: Partial<ClaimOptions> = {}) => {
  const now = new Date();
  return claimDue(db.knex, { now, leaseUntil: new Date(now.getTime() + 60_000), limit: 64, token: randomUUID(), perEndpoint: 4, perAccount: 16, ...options });
};
const claim = async (options: Partial<ClaimOptions> = {}) => (await claimWith(options)).claims;

async function accountOf(endpointId: string): Promise<string> {
  const row = (await db.knex('notifications.endpoints').where({ id: endpointId }).first()) as { account_id: string };
  return row.account_id;
}

describe.each([
  ['read from the due rows', 1_000],
  ['found by the skip scan', 2],
])('the fair claim, endpoints %s', (_, dueSample) => {
  it('serves each tenant in turn, the one served longest ago first, whatever its backlog', async () => {
    const a = await endpoint('acct_a');
    const b = await endpoint('acct_b');
    const c = await endpoint('acct_c');
    await due(a, 30, 60_000);
    await due(b, 2, 1_000);
    await due(c, 2, 500);
    const first = await claim({ limit: 3, dueSample });
    expect(await Promise.all(first.map((one) => accountOf(one.endpoint.id)))).toEqual(['acct_a', 'acct_b', 'acct_c']);
    // Served just now, they go round again in the same order; A's backlog waits its turn.
    const second = await claim({ limit: 4, dueSample });
    expect(await Promise.all(second.map((one) => accountOf(one.endpoint.id)))).toEqual(['acct_a', 'acct_b', 'acct_c', 'acct_a']);
  });

  it('keeps the caps: per endpoint and per account and environment, counting the attempts already under way', async () => {
    const one = await endpoint('acct_caps');
    const two = await endpoint('acct_caps');
    await due(one, 10, 10_000);
    await due(two, 10, 10_000);
    // One attempt to `one` already under way (claimed, lease running).
    await due(one, 1, 20_000, { claim_token: 'other-worker', next_attempt_at: new Date(Date.now() + 60_000) });
    const claimed = await claim({ perEndpoint: 3, perAccount: 5, dueSample });
    const counts = claimed.reduce<Record<string, number>>((acc, c) => ({ ...acc, [c.endpoint.id]: (acc[c.endpoint.id] ?? 0) + 1 }), {});
    expect(counts).toEqual({ [one]: 2, [two]: 2 });
    // Nothing more while those are under way.
    expect(await claim({ perEndpoint: 3, perAccount: 5, dueSample })).toEqual([]);
  });

  it('claims fresh deliveries of an endpoint before its replayed ones, and cancels what is due for a disabled endpoint', async () => {
    const live = await endpoint('acct_order');
    const off = await endpoint('acct_order', { disabled: true });
    await due(live, 2, 60_000, { replay: true });
    await due(live, 1, 1_000);
    await due(off, 2, 1_000);
    const claimed = await claim({ perEndpoint: 2, dueSample });
    const rows = (await db.knex('notifications.deliveries').whereIn(
      'id',
      claimed.map((c) => c.deliveryId),
    )) as { replay: boolean }[];
    expect(claimed.every((c) => c.endpoint.id === live)).toBe(true);
    expect(rows.map((row) => row.replay).sort()).toEqual([false, true]);
    const cancelled = await db.knex('notifications.deliveries').where({ endpoint_id: off, status: 'cancelled' });
    expect(cancelled).toHaveLength(2);
  });

  it('says whether due work was left for want of room: a slot or a cap, not an open circuit', async () => {
    const one = await endpoint('acct_held');
    const two = await endpoint('acct_held');
    const open = await endpoint('acct_held_open', { circuit_open_until: new Date(Date.now() + 60_000), timeouts_in_a_row: 5, circuit_opens: 1 });
    await due(open, 3, 5_000);
    await due(one, 2, 5_000);
    // Everything due that may go: nothing left but what the open circuit holds.
    expect(await claimWith({ dueSample })).toMatchObject({ heldBack: false });
    await due(one, 3, 4_000);
    await due(two, 3, 4_000);
    // The free slots (2) leave some.
    let claimed = await claimWith({ limit: 2, dueSample });
    expect(claimed.claims).toHaveLength(2);
    expect(claimed.heldBack).toBe(true);
    // The per-endpoint cap leaves some: `one` has 2 + 1 under way, `two` 1 of 3.
    claimed = await claimWith({ perEndpoint: 3, dueSample });
    expect(claimed.claims.map((c) => c.endpoint.id).sort()).toEqual([two, two]);
    expect(claimed.heldBack).toBe(true);
    // The per-account cap leaves some.
    await due(two, 2, 3_000);
    claimed = await claimWith({ perEndpoint: 10, perAccount: 7, dueSample });
    expect(claimed.claims).toHaveLength(1);
    expect(claimed.heldBack).toBe(true);
  });
});

describe('the fair claim as a statement (record 0272)', () => {
  it('is prepared once on a connection and planned for each call, never from a plan kept across calls', async () => {
    // One connection, so every claim and the look at its prepared statements share the session
    // (on PGlite every connection shares the one backend, and sees what the others prepared too).
    const connection = (db.knex.client as { config: { connection: unknown } }).config.connection;
    const single = knexFactory({ client: 'pg', connection: connection as Knex.StaticConnectionConfig, pool: { min: 1, max: 1 } });
    const plans = async () => {
      const { rows } = await single.raw<{ rows: { name: string; custom_plans: string; generic_plans: string }[] }>(
        `select name, custom_plans, generic_plans from pg_prepared_statements where statement like '%with in_flight as%'`,
      );
      return new Map(rows.map((row) => [row.name, { custom: Number(row.custom_plans), generic: Number(row.generic_plans) }]));
    };
    try {
      const before = await plans();
      const target = await endpoint('acct_plans');
      for (let call = 0; call < 8; call += 1) {
        await due(target, 1, 1_000);
        const now = new Date();
        const { claims } = await claimDue(single, {
          now,
          leaseUntil: new Date(now.getTime() + 60_000),
          limit: 1,
          token: randomUUID(),
          perEndpoint: 64,
          perAccount: 64,
        });
        expect(claims).toHaveLength(1);
      }
      // PostgreSQL tries a plan kept for every call once it has made five for their values.
      const made = [...(await plans())].filter(([name]) => !before.has(name)).map(([, counts]) => counts);
      expect(made).toEqual([{ custom: 8, generic: 0 }]);
    } finally {
      await single.destroy();
    }
  });
});
