import type { Knex } from 'knex';

/**
 * A database handle. `postgres` is a real PostgreSQL server reached with `pg`; `pglite` is the
 * embedded default: PGlite (Postgres compiled to WASM) served over the wire protocol on a
 * Unix socket, so the code path is `pg` as well. PGlite is single-connection, so its knex
 * pool holds ONE connection: never run a query on `knex` while holding a transaction from it.
 */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly knex: Knex;
  /** Throws when the database is unreachable; used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Migration {
  up(knex: Knex): Promise<void>;
  down?(knex: Knex): Promise<void>;
}

/** A service's migrations: its own Postgres schema and its ordered migrations by name. */
export interface MigrationSet {
  schema: string;
  migrations: Record<string, Migration>;
}
