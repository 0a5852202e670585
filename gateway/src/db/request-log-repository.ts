import type { Environment, RequestLog } from '@connectivity/contracts';
import type { Knex } from 'knex';

const TABLE = 'gateway.request_logs';

/** One answered request as the gateway keeps it: never a body, a query string or a header. */
export interface RequestLogEntry {
  requestId: string;
  accountId: string;
  environment: Environment;
  keyId: string;
  method: string;
  path: string;
  route: string | null;
  status: number;
  durationMs: number;
  at: Date;
}

interface RequestLogRow {
  request_id: string;
  environment: Environment;
  key_id: string;
  method: string;
  path: string;
  route: string | null;
  status: number;
  duration_ms: number;
  created_at: Date;
}

export interface LogScope {
  accountId: string;
  environment: Environment;
}

/** Writes a batch in one statement; a request id seen twice (a flush retried after a lost answer) is kept once. */
export async function insertRequestLogs(knex: Knex, entries: readonly RequestLogEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await knex
    .table(TABLE)
    .insert(
      entries.map((e) => ({
        request_id: e.requestId,
        account_id: e.accountId,
        environment: e.environment,
        key_id: e.keyId,
        method: e.method,
        path: e.path,
        route: e.route,
        status: e.status,
        duration_ms: e.durationMs,
        created_at: e.at,
      })),
    )
    .onConflict('request_id')
    .ignore();
}

/**
 * Keeps the newest `keep` rows of each scope and deletes the rest, in one statement: per scope,
 * the row at position `keep` is found by walking the index (at most `keep` entries), and it and
 * everything older go, found by the same index. Bounded work per scope, whatever the table holds.
 * The cut is MATERIALIZED on purpose: inlined, the planner re-runs it for every candidate row.
 */
export async function trimRequestLogs(knex: Knex, scopes: readonly LogScope[], keep: number): Promise<number> {
  if (scopes.length === 0) return 0;
  const values = scopes.map(() => '(?, ?)').join(', ');
  const result = await knex.raw<{ rowCount: number | null }>(
    `with cut as materialized (
       select s.account_id, s.environment, c.created_at, c.request_id
       from (values ${values}) as s (account_id, environment)
       cross join lateral (
         select l.created_at, l.request_id from ${TABLE} l
         where l.account_id = s.account_id and l.environment = s.environment
         order by l.created_at desc, l.request_id desc offset ? limit 1
       ) c
     )
     delete from ${TABLE} r using cut
     where r.account_id = cut.account_id and r.environment = cut.environment
       and (r.created_at, r.request_id) <= (cut.created_at, cut.request_id)`,
    [...scopes.flatMap((s) => [s.accountId, s.environment]), keep],
  );
  return result.rowCount ?? 0;
}

/** Deletes up to `batch` rows older than `before` (the retention); the purge runs until none are left. */
export async function purgeRequestLogs(knex: Knex, before: Date, batch: number): Promise<number> {
  const result = await knex.raw<{ rowCount: number | null }>(
    `delete from ${TABLE} where request_id in (select request_id from ${TABLE} where created_at < ? limit ?)`,
    [before, batch],
  );
  return result.rowCount ?? 0;
}

/** A page of a scope's log, newest first, after the position `after` (exclusive) and not older than `since`. */
export async function listRequestLogs(
  knex: Knex,
  scope: LogScope,
  options: { after?: { timeMs: number; id: string } | undefined; since: Date; limit: number },
): Promise<{ row: RequestLog; timeMs: number }[]> {
  const query = knex
    .table(TABLE)
    .where({ account_id: scope.accountId, environment: scope.environment })
    .andWhere('created_at', '>=', options.since)
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'request_id', order: 'desc' },
    ])
    .limit(options.limit)
    .select<RequestLogRow[]>('request_id', 'environment', 'key_id', 'method', 'path', 'route', 'status', 'duration_ms', 'created_at');
  const after = options.after;
  if (after) query.andWhereRaw('(created_at, request_id) < (?, ?)', [new Date(after.timeMs), after.id]);
  const rows = await query;
  return rows.map((r) => ({
    timeMs: r.created_at.getTime(),
    row: {
      object: 'request_log',
      id: r.request_id,
      method: r.method,
      path: r.path,
      route: r.route,
      status: r.status,
      duration_ms: r.duration_ms,
      api_key: r.key_id,
      environment: r.environment,
      created_at: Math.floor(r.created_at.getTime() / 1000),
    },
  }));
}
