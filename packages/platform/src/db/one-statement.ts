import type { Knex } from 'knex';
import { createBatcher } from '../work/batcher.ts';
import { runPrepared } from './prepared.ts';

/**
 * Several writes sent as ONE statement of data-modifying CTEs
 * (`with w0 as (insert ...), w1 as (update ...) select ...`). A single statement is atomic on its
 * own, so a change that needs no read between its writes commits in one round trip instead of
 * BEGIN, one per write, and COMMIT, each of which costs a socket write and a span in the service
 * and a parse and plan in PostgreSQL (docs/decisions/0122-an-order-is-written-by-one-statement.md).
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
  /** The writes' SQL and bindings, compiled once (see `statementBatcher`). */
  compile(): CompiledWrites;
  /** What `run` does once the writes are committed. */
  committed(): void;
}

interface CompiledWrites {
  writes: { sql: string; required: boolean }[];
  bindings: Knex.RawBinding[];
  /** The text of these writes as a statement of their own. */
  text: string;
}

/**
 * The writes of one or more statements as one: each a CTE `w<n>`, numbered across all of them,
 * and a check per required write.
 */
function statementText(statements: readonly Pick<CompiledWrites, 'writes'>[]): string {
  const parts: string[] = [];
  const checks: string[] = [];
  for (const write of statements.flatMap((statement) => statement.writes)) {
    const index = parts.length;
    parts.push(`w${index} as (${write.sql}${write.required ? ' returning 1' : ''})`);
    // SQL has no `raise`; a cast that fails does the same. The CASE is not folded at plan time
    // (its condition reads the CTE), so the cast runs, and fails, only when the write changed
    // no row, and the failure undoes the statement's every write.
    if (write.required) checks.push(`(case when exists (select 1 from w${index}) then '0' else '${REQUIREMENT} ${index}' end)::int`);
  }
  return `with ${parts.join(', ')} select ${checks.length > 0 ? checks.join(' + ') : '0'} as refused`;
}

// The text of the error a failed requirement raises (below); it names the write by index.
const REQUIREMENT = 'required write changed no row';
const REQUIREMENT_ERROR = new RegExp(`"${REQUIREMENT} (\\d+)"`);

export function oneStatement(): OneStatement {
  const writes: { query: Knex.QueryBuilder; refusal?: () => Error }[] = [];
  const committed: (() => void)[] = [];
  let compiledOnce: { count: number; compiled: CompiledWrites } | undefined;
  return {
    add: (query) => void writes.push({ query }),
    require: (query, refusal) => void writes.push({ query, refusal }),
    afterCommit: (fn) => void committed.push(fn),
    compile() {
      if (compiledOnce?.count === writes.length) return compiledOnce.compiled;
      const compiled: CompiledWrites = { writes: [], bindings: [], text: '' };
      for (const write of writes) {
        const query = write.query.toSQL();
        compiled.writes.push({ sql: query.sql, required: write.refusal !== undefined });
        compiled.bindings.push(...query.bindings.map(asRawBinding));
      }
      compiled.text = statementText([compiled]);
      // Writes are only ever added: the same count is the same writes.
      compiledOnce = { count: writes.length, compiled };
      return compiled;
    },
    committed() {
      for (const fn of committed) fn();
    },
    async run(db) {
      if (writes.length === 0) throw new TypeError('oneStatement().run() with no writes');
      const compiled = this.compile();
      try {
        // The same kind of change sends the same text: prepared once per connection.
        await runPrepared(db, compiled.text, compiled.bindings);
      } catch (error) {
        const failed = REQUIREMENT_ERROR.exec((error as { message?: string } | null)?.message ?? '');
        const refusal = failed ? writes[Number(failed[1])]?.refusal : undefined;
        throw refusal ? refusal() : error;
      }
      if (db.isTransaction) {
        (db as Knex.Transaction).executionPromise.then(
          () => this.committed(),
          () => undefined,
        );
      } else {
        this.committed();
      }
    },
  };
}

export interface StatementBatcher {
  /** Runs `statement` on the batcher's database, alone or in one statement with others. */
  run(statement: OneStatement): Promise<void>;
}

// Bindings per merged statement at most (PostgreSQL takes 65,535); a statement with more runs alone.
const MAX_MERGED_BINDINGS = 20_000;

/**
 * Group commit of one-statement changes on `db` (not a transaction): the statements that arrive
 * while one round trip is under way go out as ONE statement (their writes side by side, each
 * seeing the snapshot from before it, as within any one of them), which commits all of them or
 * none. Only statements of the same text are merged, so each merged text is one per kind of
 * change and batch size, prepared once like any other. If the merged statement fails (a
 * requirement, a constraint), each of its statements is run alone and meets its own fate: a
 * failure is always that of the change it belongs to.
 */
export function statementBatcher(db: Knex, options: { max: number; name: string }): StatementBatcher {
  const batcher = createBatcher<OneStatement, void>({
    name: options.name,
    max: options.max,
    run: async (statements) => {
      const outcomes: PromiseSettledResult<void>[] = statements.map(() => ({ status: 'fulfilled', value: undefined }));
      const alone = async (index: number) => {
        try {
          await statements[index]?.run(db);
        } catch (reason) {
          outcomes[index] = { status: 'rejected', reason };
        }
      };
      // Statements grouped by text, each group merged as far as the bindings allow.
      const groups = new Map<string, { index: number; compiled: CompiledWrites }[]>();
      for (const [index, statement] of statements.entries()) {
        const compiled = statement.compile();
        const group = groups.get(compiled.text) ?? [];
        groups.set(compiled.text, group);
        group.push({ index, compiled });
      }
      await Promise.all(
        [...groups.values()].map(async (group) => {
          const size = Math.max(1, Math.floor(MAX_MERGED_BINDINGS / Math.max(1, group[0]?.compiled.bindings.length ?? 0)));
          for (let start = 0; start < group.length; start += size) {
            const chunk = group.slice(start, start + size);
            if (chunk.length === 1) {
              await alone(chunk[0]?.index ?? 0);
              continue;
            }
            try {
              const compiled = chunk.map((entry) => entry.compiled);
              await runPrepared(
                db,
                statementText(compiled),
                compiled.flatMap((entry) => entry.bindings),
              );
              for (const { index } of chunk) statements[index]?.committed();
            } catch {
              for (const { index } of chunk) await alone(index);
            }
          }
        }),
      );
      return outcomes;
    },
  });
  return { run: (statement) => batcher.add(statement) };
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
