import type { Knex } from 'knex';
import { runPrepared } from './prepared.ts';

/**
 * Several writes sent as ONE statement of data-modifying CTEs
 * (`with w0 as (insert ...), w1 as (update ...) select ...`). A single statement is atomic on its
 * own, so a change that needs no read between its writes commits in one round trip instead of
 * BEGIN, one per write, and COMMIT: on the order path that is 6 round trips down to 1, each of
 * which cost a socket write and a span in the service and a parse and plan in PostgreSQL.
 *
 * Run on a transaction, it is one statement of that transaction (used where a row must be locked
 * and read first), and `afterCommit` waits for the transaction's commit.
 *
 * Every write runs exactly once whether or not anything reads it (PostgreSQL's rule for
 * data-modifying CTEs), and all of them see the snapshot from before the statement, so a write
 * must not depend on another's effect; foreign keys are checked at the end of the statement, so
 * a parent and its children may be inserted together.
 */
export interface OneStatement {
  /** A write (insert, update, delete) built with the knex handle the statement runs on, not run. */
  add(query: Knex.QueryBuilder): void;
  /**
   * A write that must change at least one row: if it changes none, the whole statement (every
   * write) is undone and `refusal()` is thrown.
   */
  require(query: Knex.QueryBuilder, refusal: () => Error): void;
  /** Runs once the writes are committed (never if they are not). */
  afterCommit(fn: () => void): void;
  /** Sends the statement; nothing is written before. */
  run(db: Knex): Promise<void>;
}

// The text of the error a failed requirement raises (below); it names the write by index.
const REQUIREMENT = 'required write changed no row';
const REQUIREMENT_ERROR = new RegExp(`"${REQUIREMENT} (\\d+)"`);

export function oneStatement(): OneStatement {
  const writes: { query: Knex.QueryBuilder; refusal?: () => Error }[] = [];
  const committed: (() => void)[] = [];
  return {
    add: (query) => void writes.push({ query }),
    require: (query, refusal) => void writes.push({ query, refusal }),
    afterCommit: (fn) => void committed.push(fn),
    async run(db) {
      if (writes.length === 0) throw new TypeError('oneStatement().run() with no writes');
      const parts: string[] = [];
      const checks: string[] = [];
      const bindings: Knex.RawBinding[] = [];
      for (const [index, write] of writes.entries()) {
        const compiled = write.query.toSQL();
        parts.push(`w${index} as (${compiled.sql}${write.refusal ? ' returning 1' : ''})`);
        bindings.push(...compiled.bindings.map(asRawBinding));
        // SQL has no `raise`; a cast that fails does the same. The CASE is not folded at plan time
        // (its condition reads the CTE), so the cast runs, and fails, only when the write changed
        // no row, and the failure undoes the statement's every write.
        if (write.refusal) checks.push(`(case when exists (select 1 from w${index}) then '0' else '${REQUIREMENT} ${index}' end)::int`);
      }
      const sql = `with ${parts.join(', ')} select ${checks.length > 0 ? checks.join(' + ') : '0'} as refused`;
      try {
        // The same kind of change sends the same text: prepared once per connection.
        await runPrepared(db, sql, bindings);
      } catch (error) {
        const failed = REQUIREMENT_ERROR.exec((error as { message?: string } | null)?.message ?? '');
        const refusal = failed ? writes[Number(failed[1])]?.refusal : undefined;
        throw refusal ? refusal() : error;
      }
      if (db.isTransaction) {
        (db as Knex.Transaction).executionPromise.then(
          () => committed.forEach((fn) => fn()),
          () => undefined,
        );
      } else {
        for (const fn of committed) fn();
      }
    },
  };
}

/**
 * `knex.raw` spreads an array binding into a list (`in (?)`); a builder's insert meant one array
 * value. So arrays go in as PostgreSQL array literals, as `pg` itself would send them.
 */
function asRawBinding(value: unknown): Knex.RawBinding {
  if (!Array.isArray(value)) return value as Knex.RawBinding;
  const element = (item: unknown): string => {
    if (item === null || item === undefined) return 'NULL';
    if (typeof item === 'number' || typeof item === 'bigint') return String(item);
    if (typeof item !== 'string') throw new TypeError('oneStatement: array bindings hold numbers, strings or nulls');
    return `"${item.replace(/[\\"]/g, '\\$&')}"`;
  };
  return `{${value.map(element).join(',')}}`;
}
