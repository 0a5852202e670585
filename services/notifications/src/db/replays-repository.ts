import type { Environment } from '@connectivity/contracts';
import { claimDue } from '@connectivity/platform';
import type { Knex } from 'knex';
import { MATCHING_ENDPOINTS } from './deliveries-repository.ts';

/** The work signal of replays: raised after a commit that queued one. */
export const REPLAYS_SIGNAL = 'notifications:replays';

export interface ReplayScope {
  accountId: string;
  environment: Environment;
}

/** What a replay of the events created at or after `since` would queue, counted up to `limit`. */
export interface ReplayPlan {
  /** Events in the window, at most `limit` (so `limit` means "that many or more"). */
  events: number;
  /** Of those, the events some endpoint enabled now is subscribed to. */
  matched: number;
  /** Endpoints enabled now that are subscribed to at least one of them. */
  endpoints: number;
  /** `created_at` of the oldest event counted (the `limit`-th newest when the window holds more). */
  oldest: number | null;
}

/**
 * Counts what a replay would queue without reading more than `limit` events: the newest `limit`
 * of the window, so when the window holds more, `oldest` tells where a window that fits begins.
 */
export async function planReplay(knex: Knex, scope: ReplayScope, since: number, limit: number): Promise<ReplayPlan> {
  const result = await knex.raw<{ rows: { events: string; matched: string; endpoints: string; oldest: string | null }[] }>(
    `with ev as (
       select id, account_id, environment, type, created_at from notifications.events
       where account_id = ? and environment = ? and created_at >= ?
       order by occurred_at desc, id desc
       limit ?
     )
     select (select count(*) from ev) as events,
       (select min(created_at) from ev) as oldest,
       (select count(*) from ev where exists (select 1 from notifications.endpoints e where ${MATCHING_ENDPOINTS})) as matched,
       (select count(*) from notifications.endpoints e
        where e.account_id = ? and e.environment = ? and e.deleted_at is null and not e.disabled
          and exists (select 1 from ev where ${MATCHING_ENDPOINTS})) as endpoints`,
    [scope.accountId, scope.environment, since, limit, scope.accountId, scope.environment],
  );
  const row = result.rows[0];
  return {
    events: Number(row?.events ?? 0),
    matched: Number(row?.matched ?? 0),
    endpoints: Number(row?.endpoints ?? 0),
    oldest: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
  };
}

/** The scope's replay under way, if any: how far it got. */
export async function runningReplay(knex: Knex, scope: ReplayScope): Promise<{ total: number; done: number } | undefined> {
  const row = (await knex('notifications.replays')
    .select('total', 'done')
    .where({ account_id: scope.accountId, environment: scope.environment, status: 'running' })
    .first()) as { total: number; done: number } | undefined;
  return row;
}

/**
 * Queues a replay of `total` events created at or after `since` and stored by now; due at once.
 * A second running replay of the scope is a unique violation (the caller's 409).
 */
export async function insertReplay(trx: Knex.Transaction, scope: ReplayScope, since: number, total: number): Promise<void> {
  await trx.raw(
    `insert into notifications.replays (account_id, environment, since, requested_at, total, status, next_run_at)
     values (?, ?, ?, now(), ?, 'running', now())`,
    [scope.accountId, scope.environment, since, total],
  );
}

/** A replay a worker holds until its lease ends: what its next batch needs. */
export interface ClaimedReplay extends ReplayScope {
  id: string;
  token: string;
  since: number;
  requestedAt: Date;
  total: number;
  done: number;
  /** The last event queued so far (by time, then id); null before the first batch. */
  after: { time: Date; id: string } | null;
}

interface ReplayRow {
  id: string;
  account_id: string;
  environment: Environment;
  since: string | number;
  requested_at: Date;
  total: number;
  done: number;
  after_time: Date | null;
  after_id: string | null;
}

/** Claims up to `limit` due replays until `leaseUntil` (no other worker takes them meanwhile), the longest waiting first. */
export async function claimReplays(knex: Knex, options: { now: Date; leaseUntil: Date; limit: number; token: string }): Promise<ClaimedReplay[]> {
  const rows = await claimDue<ReplayRow>(knex, {
    table: 'notifications.replays',
    key: 'id',
    due: { sql: "status = 'running' and next_run_at <= ?", bindings: [options.now] },
    orderBy: 'next_run_at',
    limit: options.limit,
    set: { sql: 'next_run_at = ?, claim_token = ?', bindings: [options.leaseUntil, options.token] },
    returning: ['id', 'account_id', 'environment', 'since', 'requested_at', 'total', 'done', 'after_time', 'after_id'],
  });
  return rows.map((row) => ({
    id: String(row.id),
    token: options.token,
    accountId: row.account_id,
    environment: row.environment,
    since: Number(row.since),
    requestedAt: new Date(row.requested_at),
    total: row.total,
    done: row.done,
    after: row.after_time === null || row.after_id === null ? null : { time: new Date(row.after_time), id: row.after_id },
  }));
}

/**
 * True when an endpoint the scope's replays go to has more than `cap` deliveries pending (each
 * endpoint's count stops at `cap + 1`, so the check never counts a backlog whole).
 */
export async function endpointOverPendingCap(knex: Knex, scope: ReplayScope, cap: number): Promise<boolean> {
  const result = await knex.raw<{ rows: { over: boolean }[] }>(
    `select exists (
       select 1 from notifications.endpoints e
       where e.account_id = ? and e.environment = ? and e.deleted_at is null and not e.disabled
         and (select count(*) from (
               select 1 from notifications.deliveries d where d.endpoint_id = e.id and d.status = 'pending' limit ?
             ) pending) > ?
     ) as over`,
    [scope.accountId, scope.environment, cap + 1, cap],
  );
  return result.rows[0]?.over === true;
}

/** True when the scope has `cap` deliveries pending or more (counted up to the cap). */
export async function accountAtPendingCap(knex: Knex, scope: ReplayScope, cap: number): Promise<boolean> {
  const result = await knex.raw<{ rows: { pending: string }[] }>(
    `select count(*) as pending from (
       select 1 from notifications.endpoints e join notifications.deliveries d on d.endpoint_id = e.id and d.status = 'pending'
       where e.account_id = ? and e.environment = ? and e.deleted_at is null
       limit ?
     ) p`,
    [scope.accountId, scope.environment, cap],
  );
  return Number(result.rows[0]?.pending ?? 0) >= cap;
}

/** Gives the replay back, due again at `until`; false if its lease was lost meanwhile. */
export async function postponeReplay(knex: Knex, replay: ClaimedReplay, until: Date): Promise<boolean> {
  const changed = await knex('notifications.replays').where({ id: replay.id, claim_token: replay.token }).update({ next_run_at: until, claim_token: null });
  return changed > 0;
}

/**
 * The replay's next batch, in its transaction: up to `limit` events after its cursor, oldest
 * first, each queued again to every endpoint subscribed to it now. Returns their ids in order.
 */
export async function queueReplayBatch(trx: Knex.Transaction, replay: ClaimedReplay, limit: number, now: Date): Promise<{ id: string; time: Date }[]> {
  const cursor = replay.after === null ? '' : 'and (ev.occurred_at, ev.id) > (?, ?)';
  const cursorBindings = replay.after === null ? [] : [replay.after.time, replay.after.id];
  const result = await trx.raw<{ rows: { id: string; occurred_at: Date }[] }>(
    // A data-modifying CTE runs to completion whether or not the query reads it.
    `with ev as (
       select ev.id, ev.account_id, ev.environment, ev.type, ev.occurred_at from notifications.events ev
       where ev.account_id = ? and ev.environment = ? and ev.created_at >= ? and ev.stored_at <= ? ${cursor}
       order by ev.occurred_at, ev.id
       limit ?
     ), queued as (
       insert into notifications.deliveries (event_id, endpoint_id, status, next_attempt_at, replay)
       select ev.id, e.id, 'pending', ?, true from ev join notifications.endpoints e on ${MATCHING_ENDPOINTS}
       returning 1
     )
     select id, occurred_at from ev order by occurred_at, id`,
    [replay.accountId, replay.environment, replay.since, replay.requestedAt, ...cursorBindings, limit, now],
  );
  return result.rows.map((row) => ({ id: row.id, time: new Date(row.occurred_at) }));
}

/**
 * Moves the replay past the batch just queued, in the batch's transaction, and gives the claim
 * back (due again at once, behind other replays that wait longer) or ends it. False when the
 * lease was lost to another worker: the caller rolls the batch back.
 */
export async function advanceReplay(
  trx: Knex.Transaction,
  replay: ClaimedReplay,
  batch: { count: number; last: { time: Date; id: string } | undefined; finished: boolean },
  now: Date,
): Promise<boolean> {
  const changed = await trx('notifications.replays')
    .where({ id: replay.id, claim_token: replay.token })
    .update({
      done: replay.done + batch.count,
      ...(batch.last && { after_time: batch.last.time, after_id: batch.last.id }),
      status: batch.finished ? 'finished' : 'running',
      finished_at: batch.finished ? now : null,
      next_run_at: now,
      claim_token: null,
    });
  return changed > 0;
}

/** Deletes up to `limit` replays that finished before `before`; how many went. */
export async function pruneFinishedReplays(knex: Knex, before: Date, limit: number): Promise<number> {
  return knex('notifications.replays')
    .whereIn('id', knex('notifications.replays').select('id').where('status', 'finished').andWhere('finished_at', '<', before).limit(limit))
    .delete();
}
