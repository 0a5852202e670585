import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Validity as the supplier counts it (record 0230): when an eSIM's validity starts counting, its
 * duration (to set `expires_at` once the start is reported), and the install-by deadline where the
 * supplier has one. Live eSIMs bought before this migration were given `purchase + duration`: those
 * not yet in use get their duration kept and `expires_at` cleared, since both live vendors start the
 * validity at first use; those in use keep theirs until the supplier's next report corrects it.
 * `supplier_deleted` joins the reasons an eSIM expires (record 0235).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `alter table ??.esims
       add column validity_start text not null default 'purchase' check (validity_start in ('purchase', 'first_use')),
       add column validity_days integer check (validity_days > 0),
       add column install_by bigint`,
    [SCHEMA],
  );
  await knex.raw(
    `update ??.esims set
       validity_start = 'first_use',
       validity_days = case when expires_at is not null and expires_at > created_at then ceil((expires_at - created_at) / 86400.0)::integer end,
       expires_at = case when state in ('released', 'installed') then null else expires_at end
     where environment = 'live' and state <> 'expired'`,
    [SCHEMA],
  );
  // Reconciliation at the vendor's pace (record 0234): when an eSIM may be asked about again, and the
  // poll budget every instance shares (one row per live supplier, a window and what was spent in it).
  await knex.raw('alter table ??.esims add column supplier_next_check_at bigint', [SCHEMA]);
  await knex.raw(
    `create table ??.supplier_poll_budget (
       supplier text primary key,
       window_start bigint not null,
       spent integer not null check (spent >= 0)
     )`,
    [SCHEMA],
  );
  await knex.raw('alter table ??.esims drop constraint if exists esims_expired_reason_check', [SCHEMA]);
  await knex.raw(
    `alter table ??.esims add constraint esims_expired_reason_check
       check (expired_reason in ('validity_ended', 'data_exhausted', 'cancelled', 'supplier_deleted'))`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.esims drop constraint if exists esims_expired_reason_check', [SCHEMA]);
  await knex.raw(`alter table ??.esims add constraint esims_expired_reason_check check (expired_reason in ('validity_ended', 'data_exhausted', 'cancelled'))`, [
    SCHEMA,
  ]);
  await knex.raw('drop table if exists ??.supplier_poll_budget', [SCHEMA]);
  await knex.raw('alter table ??.esims drop column validity_start, drop column validity_days, drop column install_by, drop column supplier_next_check_at', [
    SCHEMA,
  ]);
}
