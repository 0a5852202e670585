import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/** The part of a `pg` client used here. */
interface PgConnection {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
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

/**
 * Runs a statement of the hot path as a NAMED prepared statement (`sql` with `?` bindings, as
 * `knex.raw` takes them): PostgreSQL parses and plans it once per connection, and afterwards
 * only binds and executes it, where an unnamed statement (what knex sends) is parsed and
 * planned on every call. On a transaction it runs on the transaction's connection.
 */
export async function runPrepared<Row>(db: Knex, sql: string, bindings: readonly Knex.RawBinding[]): Promise<{ rows: Row[]; rowCount: number }> {
  const native = db.raw(sql, bindings).toSQL().toNative();
  const digest = createHash('sha1').update(native.sql).digest('hex').slice(0, 20);
  // A transaction's client hands out the transaction's own connection.
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query({ name: `${prefixOf(connection)}_${digest}`, text: native.sql, values: native.bindings as unknown[] });
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  } finally {
    await client.releaseConnection(connection);
  }
}
