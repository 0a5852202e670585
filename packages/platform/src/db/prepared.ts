import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/** The part of a `pg` client used here. */
interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

interface PooledClient {
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
}

// Statement names are per connection: PGlite is one backend behind every connection it serves,
// so a name a closed connection prepared may still exist there; a new connection uses its own.
const prefixes = new WeakMap<PgConnection, string>();
const prefixOf = (connection: PgConnection): string => {
  let prefix = prefixes.get(connection);
  if (prefix === undefined) {
    prefix = `p${randomBytes(4).toString('hex')}`;
    prefixes.set(connection, prefix);
  }
  return prefix;
};

/** A statement's text as sent (`$n` placeholders) and the name it is prepared under. */
interface NativeText {
  text: string;
  digest: string;
}

// The hot path sends a few texts over and over: each is positioned and hashed once. Texts are
// few (one per kind of statement and batch shape); the cap only guards against a caller that
// builds texts from data.
const texts = new Map<string, NativeText>();
const MAX_TEXTS = 1_000;

const digestOf = (text: string) => createHash('sha1').update(text).digest('hex').slice(0, 20);

/** A value `pg` sends as it is, which knex would pass through unchanged. */
const isPlain = (value: unknown): boolean =>
  value === null || (typeof value !== 'object' && typeof value !== 'function' && value !== undefined) || value instanceof Date || Buffer.isBuffer(value);

/**
 * `sql` with `?` bindings as PostgreSQL takes it. Plain `?` placeholders and plain values (the
 * hot path's) are positioned here, once per text; anything knex gives a meaning to (`??`
 * identifiers, `\?`, raw or undefined values) goes through knex as before.
 */
function nativeOf(db: Knex, sql: string, bindings: readonly Knex.RawBinding[]): { text: string; digest: string; values: unknown[] } {
  if (!sql.includes('??') && !sql.includes('\\?') && bindings.every(isPlain)) {
    let cached = texts.get(sql);
    if (cached === undefined) {
      let position = 0;
      const text = sql.replace(/\?/g, () => `$${(position += 1)}`);
      if (position === bindings.length) {
        cached = { text, digest: digestOf(text) };
        if (texts.size >= MAX_TEXTS) texts.clear();
        texts.set(sql, cached);
      }
    }
    if (cached !== undefined) return { ...cached, values: bindings as unknown[] };
  }
  const native = db.raw(sql, bindings).toSQL().toNative();
  return { text: native.sql, digest: digestOf(native.sql), values: native.bindings as unknown[] };
}

export interface PreparedOptions {
  /**
   * Plans the statement for each call's values and the tables as they are then (an unnamed
   * statement). For a statement whose best plan depends on a table's size (a join or an `in
   * (subquery)` over a table that grows): a plan cached while the table was small (a fresh
   * database, the first minute of a deployment) scans the whole table on every call until the
   * next ANALYZE (docs/decisions/0019-size-dependent-statements-planned-per-call.md).
   */
  replan?: boolean;
}

/**
 * Runs a statement of the hot path as a NAMED prepared statement (`sql` with `?` bindings, as
 * `knex.raw` takes them): PostgreSQL parses and plans it once per connection, and afterwards
 * only binds and executes it, where an unnamed statement (what knex sends) is parsed and
 * planned on every call. On a transaction it runs on the transaction's connection.
 */
export async function runPrepared<Row>(
  db: Knex,
  sql: string,
  bindings: readonly Knex.RawBinding[],
  options: PreparedOptions = {},
): Promise<{ rows: Row[]; rowCount: number }> {
  const native = nativeOf(db, sql, bindings);
  // A transaction's client hands out the transaction's own connection.
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query(
      options.replan
        ? { text: native.text, values: native.values }
        : { name: `${prefixOf(connection)}_${native.digest}`, text: native.text, values: native.values },
    );
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  } finally {
    await client.releaseConnection(connection);
  }
}
