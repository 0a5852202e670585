import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * `esim.expiring` once per mark (record 0236): on each eSIM, the `expires_at` its last notice was for and
 * that notice's mark (3 or 1 days), so a mark is sent once and a top-up that moves `expires_at` re-arms
 * them; and whether its supplier sends its own notices before the end (Airalo's `3days`/`1days`), in
 * which case the sweeper sends none for it. Nullable columns and a default only: nothing is rewritten.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table ??.esims
       add column expiring_notified_for bigint,
       add column expiring_notified_days smallint check (expiring_notified_days in (3, 1)),
       add column vendor_notices_expiry boolean not null default false`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.esims drop column expiring_notified_for, drop column expiring_notified_days, drop column vendor_notices_expiry', [SCHEMA]);
}
