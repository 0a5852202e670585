import type { ApiEvent as Event, Environment } from '@connectivity/contracts';
import { runPrepared } from '@connectivity/platform';
import type { Knex } from 'knex';

/** One attempt a worker now owns: what to send and where. */
export interface Claim {
  deliveryId: string;
  token: string;
  attempt: number;
  /** `sealedSecret` is opened only to sign this attempt. */
  endpoint: { id: string; url: string; sealedSecret: string; environment: Environment };
  event: Event;
  /** W3C trace context of the request that caused the event. */
  traceContext: Record<string, string>;
}

export interface ClaimOptions {
  now: Date;
  /** Until when the claimed attempts are this worker's. */
  leaseUntil: Date;
  /** How many to claim at most: the worker's free slots. */
  limit: number;
  token: string;
  /** Attempts under way to one endpoint at most, counted over every instance. */
  perEndpoint: number;
  /** Attempts under way for one account and environment at most, counted over every instance. */
  perAccount: number;
  /** Up to this many due deliveries, the endpoints to serve are read from the due rows themselves (see `dueEndpoints`). */
  dueSample?: number;
}

/** Claims are taken one at a time over every instance, so the caps and the turns they count are exact. */
const CLAIM_LOCK = 'notifications:deliveries:claim';

const DUE_SAMPLE = 1_000;

/**
 * The endpoints with due work. Usually few rows are due, and they are read whole from
 * `deliveries_due` (an idle claim costs one index probe). When more are due (a backlog), a skip
 * scan of `deliveries_queue` lists every endpoint with pending work and its earliest due time,
 * fresh and replayed apart, one index descent each whatever the backlog behind it: a tenant's
 * thousands of due rows never hide another's one.
 */
async function dueEndpoints(trx: Knex.Transaction, now: Date, dueSample: number): Promise<string[]> {
  const sample = await trx.raw<{ rows: { endpoint_id: string }[] }>(
    `select endpoint_id from notifications.deliveries where status = 'pending' and next_attempt_at <= ? limit ?`,
    [now, dueSample + 1],
  );
  if (sample.rows.length <= dueSample) return [...new Set(sample.rows.map((row) => row.endpoint_id))];
  const all = await trx.raw<{ rows: { endpoint_id: string }[] }>(
    `with recursive pending (endpoint_id, replay, first_due) as (
       (select endpoint_id, replay, next_attempt_at from notifications.deliveries where status = 'pending'
        order by endpoint_id, replay, next_attempt_at limit 1)
       union all
       select n.endpoint_id, n.replay, n.next_attempt_at from pending p
       cross join lateral (
         select d.endpoint_id, d.replay, d.next_attempt_at from notifications.deliveries d
         where d.status = 'pending' and (d.endpoint_id, d.replay) > (p.endpoint_id, p.replay)
         order by d.endpoint_id, d.replay, d.next_attempt_at limit 1
       ) n
     )
     select distinct endpoint_id from pending where first_due <= ?`,
    [now],
  );
  return all.rows.map((row) => row.endpoint_id);
}

/**
 * The fair pick among the endpoints with due work, in one statement: each offers its due
 * deliveries, fresh before replayed, up to its room under the per-endpoint cap (none while its
 * circuit is open, so nothing held back is attempted or counted as an attempt); the offers of one
 * account and environment are numbered in turn (the first of each of its endpoints, then the
 * second, ...) and kept under the per-account cap; then every tenant's first turn goes before
 * anyone's second, the tenant served longest ago first. The chosen rows are leased (`for update
 * skip locked` leaves rows another transaction holds), their tenants marked served, and what
 * sending them needs returned; `held` says whether due work was left for want of room (a slot
 * or an attempt that ends may let it go). Due deliveries of endpoints disabled or deleted
 * meanwhile are cancelled, never attempted.
 */
const FAIR_CLAIM = `
  with in_flight as (
    select d.endpoint_id, e.account_id, e.environment, count(*) as n
    from notifications.deliveries d join notifications.endpoints e on e.id = d.endpoint_id
    where d.status = 'pending' and d.claim_token is not null and d.next_attempt_at > :now
    group by d.endpoint_id, e.account_id, e.environment
  ), tenants as (
    select account_id, environment, sum(n) as in_flight from in_flight group by account_id, environment
  ), queues as (
    select e.id as endpoint_id, e.account_id, e.environment, (e.deleted_at is null and not e.disabled) as usable,
      coalesce(e.circuit_open_until > :now, false) as open,
      -- The endpoint's circuit (domain/endpoint-circuit.ts): closed, the cap; its cooldown over, one probe.
      greatest(case when e.circuit_open_until is null then :perEndpoint else 1 end - coalesce(f.n, 0), 0) as room
    from unnest(cast(:endpoints as text[])) as p (endpoint_id)
    join notifications.endpoints e on e.id = p.endpoint_id
    left join in_flight f on f.endpoint_id = e.id
  ), stale as (
    update notifications.deliveries d set status = 'cancelled', claim_token = null, updated_at = :now
    from queues q where not q.usable and d.endpoint_id = q.endpoint_id and d.status = 'pending' and d.next_attempt_at <= :now
    returning d.id
  ), offers as (
    -- One more than the room, to know whether the endpoint's cap held any back.
    select q.account_id, q.environment, q.room, o.id, o.replay, o.next_attempt_at,
      row_number() over (partition by q.endpoint_id order by o.replay, o.next_attempt_at) as place
    from queues q
    cross join lateral (
      (select id, replay, next_attempt_at from notifications.deliveries
       where endpoint_id = q.endpoint_id and status = 'pending' and not replay and next_attempt_at <= :now
       order by next_attempt_at limit q.room + 1)
      union all
      (select id, replay, next_attempt_at from notifications.deliveries
       where endpoint_id = q.endpoint_id and status = 'pending' and replay and next_attempt_at <= :now
       order by next_attempt_at limit q.room + 1)
    ) o
    where q.usable and not q.open
  ), turns as (
    select o.*, row_number() over (partition by o.account_id, o.environment order by o.place, o.replay, o.next_attempt_at) as turn
    from offers o where o.place <= o.room
  ), eligible as (
    select t.*, row_number() over (order by t.turn, t.replay, s.served nulls first, t.next_attempt_at) as rank
    from turns t
    left join tenants n on n.account_id = t.account_id and n.environment = t.environment
    left join notifications.delivery_turns s on s.account_id = t.account_id and s.environment = t.environment
    where t.turn + coalesce(n.in_flight, 0) <= :perAccount
  ), held as (
    select exists (select 1 from offers where place > room)
      or (select count(*) from turns) > (select count(*) from eligible)
      or (select count(*) from eligible) > :limit as held
  ), locked as (
    select d.id, c.rank from notifications.deliveries d
    join (select id, rank from eligible order by rank limit :limit) c on c.id = d.id
    -- Checked again on the row as it is when locked: a row leased meanwhile is never leased twice.
    where d.status = 'pending' and d.next_attempt_at <= :now
    for update of d skip locked
  ), claimed as (
    update notifications.deliveries d
    set attempts = d.attempts + 1, next_attempt_at = :leaseUntil, claim_token = :token, updated_at = :now
    from locked l, notifications.endpoints e, notifications.events ev
    where d.id = l.id and e.id = d.endpoint_id and ev.id = d.event_id
    returning d.id, d.attempts, l.rank, e.id as endpoint_id, e.account_id, e.environment, e.url, e.secret_sealed, ev.envelope, ev.trace_context
  ), served as (
    insert into notifications.delivery_turns (account_id, environment, served)
    select account_id, environment, nextval('notifications.delivery_turns_served')
    from (select account_id, environment, min(rank) as first from claimed group by account_id, environment order by first) t
    on conflict (account_id, environment) do update set served = excluded.served
    returning 1
  )
  select h.held, c.* from held h left join claimed c on true`;

/**
 * FAIR_CLAIM with `?` placeholders for runPrepared, and the binding each stands for. It is
 * prepared once per connection (its parse, half a millisecond on the embedded database, paid once)
 * but still planned for each call's values and tables: a plan kept across calls would have been
 * made for the sizes of the moment (docs/decisions/0019-size-dependent-statements-planned-per-call.md,
 * docs/decisions/0272-the-delivery-claim-is-parsed-once.md).
 */
const FAIR_CLAIM_BINDINGS: (keyof FairClaimValues)[] = [];
const FAIR_CLAIM_TEXT = FAIR_CLAIM.replace(/:(\w+)/g, (_match, name: keyof FairClaimValues) => {
  FAIR_CLAIM_BINDINGS.push(name);
  return '?';
});

interface FairClaimValues {
  endpoints: string[];
  now: Date;
  leaseUntil: Date;
  token: string;
  limit: number;
  perEndpoint: number;
  perAccount: number;
}

interface ClaimedRow {
  held: boolean;
  id: string | null;
  attempts: number;
  rank: string | number;
  endpoint_id: string;
  environment: Environment;
  url: string;
  secret_sealed: string;
  envelope: Event;
  trace_context: Record<string, string> | null;
}

/** What a claim took, in the order picked, and whether due work was left for want of room. */
export interface Claimed {
  claims: Claim[];
  heldBack: boolean;
}

/**
 * Claims up to `limit` due deliveries until `leaseUntil`, fairly (see FAIR_CLAIM), one claim at
 * a time over every instance.
 */
export async function claimDue(knex: Knex, options: ClaimOptions): Promise<Claimed> {
  const rows = await knex.transaction(async (trx) => {
    // Custom plans only in this transaction: the prepared claim is planned for each call (see FAIR_CLAIM_TEXT).
    await trx.raw("select pg_advisory_xact_lock(hashtextextended(?, 0)), set_config('plan_cache_mode', 'force_custom_plan', true)", [CLAIM_LOCK]);
    const endpoints = await dueEndpoints(trx, options.now, options.dueSample ?? DUE_SAMPLE);
    if (endpoints.length === 0) return [];
    const values: FairClaimValues = {
      endpoints,
      now: options.now,
      leaseUntil: options.leaseUntil,
      token: options.token,
      limit: options.limit,
      perEndpoint: options.perEndpoint,
      perAccount: options.perAccount,
    };
    const result = await runPrepared<ClaimedRow>(
      trx,
      FAIR_CLAIM_TEXT,
      FAIR_CLAIM_BINDINGS.map((name) => values[name]),
    );
    return result.rows;
  });
  const claims = rows
    .filter((row) => row.id !== null)
    .sort((a, b) => Number(a.rank) - Number(b.rank))
    .map((row) => ({
      deliveryId: String(row.id),
      token: options.token,
      // `attempts` already counts this one.
      attempt: row.attempts,
      endpoint: { id: row.endpoint_id, url: row.url, sealedSecret: row.secret_sealed, environment: row.environment },
      event: row.envelope,
      traceContext: row.trace_context ?? {},
    }));
  return { claims, heldBack: rows[0]?.held === true };
}
