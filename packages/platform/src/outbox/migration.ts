import type { Knex } from 'knex';
import type { Migration } from '../db/types.ts';

/** The outbox table's name inside a service's schema. */
export const OUTBOX_TABLE = 'outbox';

/**
 * Creates `<schema>.outbox`: one row per event, written in the business transaction and
 * published by the relay. A service lists it among its own migrations, e.g.
 * `{ '001_outbox': outboxMigration('inventory'), '002_esims': ... }`.
 */
export function outboxMigration(schema: string): Migration {
  return {
    async up(knex: Knex) {
      await knex.raw(
        `create table ??.?? (
          id text primary key,
          subject text not null,
          payload jsonb not null,
          headers jsonb not null default '{}'::jsonb,
          created_at timestamptz not null default now(),
          attempts integer not null default 0,
          next_attempt_at timestamptz not null default now(),
          published_at timestamptz,
          last_error text
        )`,
        [schema, OUTBOX_TABLE],
      );
      // The relay's query walks pending rows in publish order; the partial index holds only
      // pending rows, so it stays small however many published rows the table keeps.
      await knex.raw('create index outbox_pending_idx on ??.?? (created_at, id) where published_at is null', [schema, OUTBOX_TABLE]);
      // Lets the periodic prune find old published rows without scanning the table.
      await knex.raw('create index outbox_published_idx on ??.?? (published_at) where published_at is not null', [schema, OUTBOX_TABLE]);
    },
    async down(knex: Knex) {
      await knex.schema.withSchema(schema).dropTableIfExists(OUTBOX_TABLE);
    },
  };
}
