import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Why an expired eSIM expired. eSIMs that expired before this migration get the reason their row
 * shows: all their data used → `data_exhausted`; validity over when it last changed →
 * `validity_ended`; otherwise it was cancelled. A nullable column rewrites no row, and the previous
 * release (which does not know the column) keeps working during a rolling deploy; what it expires
 * meanwhile shows a null reason, so the column is not tied to the state by a check.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table ??.esims add column expired_reason text
       check (expired_reason in ('validity_ended', 'data_exhausted', 'cancelled'))`,
    [SCHEMA],
  );
  await knex.raw(
    `update ??.esims set expired_reason = case
       when data_limit_bytes is not null and data_used_bytes >= data_limit_bytes then 'data_exhausted'
       when expires_at is not null and expires_at <= updated_at then 'validity_ended'
       else 'cancelled' end
     where state = 'expired'`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.esims drop column expired_reason', [SCHEMA]);
}
