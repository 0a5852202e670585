import type { Knex } from 'knex';
import { runPrepared } from '../db/prepared.ts';

export interface ClaimSpec {
  /** Schema-qualified table, e.g. `inventory.outbox`. */
  table: string;
  /** The primary key column. */
  key: string;
  /** The rows that are due, as an SQL condition with its bindings. */
  due: { sql: string; bindings: readonly Knex.RawBinding[] };
  /** Oldest work first. */
  orderBy: string;
  limit: number;
  /** What claiming sets (at least the lease), as SQL assignments with their bindings. */
  set: { sql: string; bindings: readonly Knex.RawBinding[] };
  /** Columns to return of each claimed row. */
  returning: readonly string[];
}

/**
 * Claims up to `limit` due rows for this worker in one statement: the due rows are locked with
 * `FOR UPDATE SKIP LOCKED` (rows another worker is claiming are skipped, never waited for) and
 * leased (`set`, e.g. the next attempt moved one lease ahead), so any number of workers in any
 * number of processes share the work without taking a row twice, and no transaction stays open
 * while the work is done. A worker that dies leaves its rows to come due again when the lease ends.
 */
export async function claimDue<Row>(db: Knex, spec: ClaimSpec): Promise<Row[]> {
  // Planned on each pass: the outer `in` over a table that grows (see `PreparedOptions.replan`).
  const result = await runPrepared<Row>(
    db,
    `update ${spec.table} set ${spec.set.sql}
     where ${spec.key} in (
       select ${spec.key} from ${spec.table} where ${spec.due.sql} order by ${spec.orderBy} limit ? for update skip locked
     )
     returning ${spec.returning.join(', ')}`,
    [...spec.set.bindings, ...spec.due.bindings, spec.limit],
    { replan: true },
  );
  return result.rows;
}
