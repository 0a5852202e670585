import type { Knex } from 'knex';
import type { Migration } from '../db/types.ts';

/** The table of a service's idempotency records. */
export const IDEMPOTENCY_TABLE = 'idempotency_records';

/**
 * Creates `<schema>.idempotency_records`: one row per (API key, Idempotency-Key) whose request
 * changed this service's state, written in the same transaction as the change. A service lists
 * it among its own migrations.
 */
export function idempotencyMigration(schema: string): Migration {
  return {
    async up(knex: Knex) {
      await knex.raw(
        `create table ??.?? (
          key_id text not null,
          idempotency_key text not null,
          fingerprint text not null,
          claim_id text not null,
          status text not null check (status in ('in_progress', 'completed')),
          response_status integer,
          response_headers jsonb,
          response_body text,
          created_at timestamptz not null default now(),
          locked_until timestamptz not null,
          expires_at timestamptz not null,
          primary key (key_id, idempotency_key)
        )`,
        [schema, IDEMPOTENCY_TABLE],
      );
      await knex.raw('create index ?? on ??.?? (expires_at)', [`${IDEMPOTENCY_TABLE}_expiry`, schema, IDEMPOTENCY_TABLE]);
    },
    async down(knex: Knex) {
      await knex.schema.withSchema(schema).dropTableIfExists(IDEMPOTENCY_TABLE);
    },
  };
}
