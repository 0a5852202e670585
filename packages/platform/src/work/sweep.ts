import type { Knex } from 'knex';

export interface SweepSpec<Row, Result> {
  /**
   * The due rows, as a query on the transaction, in the order to take them. The sweep adds the
   * limit and the lock; the query must select whole rows of one table (FOR UPDATE locks them).
   */
  due(trx: Knex.Transaction): Knex.QueryBuilder;
  limit: number;
  /** What is done to the rows, under their lock, in the same transaction. */
  apply(trx: Knex.Transaction, rows: Row[]): Promise<Result>;
}

/**
 * The sweep: locks up to `limit` due rows and changes them in ONE transaction. Rows another
 * worker holds are skipped (`FOR UPDATE SKIP LOCKED`), never waited for, so any number of
 * instances sweep side by side and each row is changed once; the rows are read under the lock,
 * so `apply` sees their state as it is. For work done on the spot; work that calls out (an HTTP
 * call) claims rows with a lease instead (`claimDue`) and holds no transaction while it runs.
 * Resolves with how many rows were taken (a full batch suggests more are due) and what `apply` gave.
 */
export async function sweepDue<Row, Result>(knex: Knex, spec: SweepSpec<Row, Result>): Promise<{ taken: number; result: Result }> {
  return knex.transaction(async (trx) => {
    const rows = (await spec.due(trx).limit(spec.limit).forUpdate().skipLocked()) as Row[];
    return { taken: rows.length, result: await spec.apply(trx, rows) };
  });
}
