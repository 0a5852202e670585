import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * The live life cycle, driven by the supplier (records 0150–0152):
 * - on eSIMs, when reconciliation last asked the supplier about one (`supplier_checked_at`, Unix
 *   milliseconds; null: never, so asked first) and the time of the newest supplier report applied
 *   (`supplier_observed_at`, Unix seconds: an older report changes nothing);
 * - `supplier_reports`, the inbox of verified callbacks: one row per distinct report, keyed by a
 *   digest of it, so a callback delivered twice stores nothing new; applied by a worker;
 * - `purchase_intents`: a live order's id written, and committed, before the supplier is asked for
 *   its profiles, so a retry after a crash asks the supplier what it did before buying again.
 * Nullable columns and new tables only: nothing is rewritten, and the previous release keeps working
 * during a rolling deploy.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.esims add column supplier_checked_at bigint, add column supplier_observed_at bigint', [SCHEMA]);
  // Reconciliation's order: live eSIMs not final, never checked first, then least recently checked.
  await knex.raw(
    `create index esims_supplier_check_idx on ??.esims (supplier_checked_at asc nulls first, id)
       where environment = 'live' and state <> 'expired'`,
    [SCHEMA],
  );

  await knex.raw(
    `create table ??.supplier_reports (
      id text primary key,
      vendor text not null,
      iccid text not null,
      report jsonb not null,
      received_at bigint not null,
      applied_at bigint
    )`,
    [SCHEMA],
  );
  await knex.raw('create index supplier_reports_due_idx on ??.supplier_reports (received_at) where applied_at is null', [SCHEMA]);

  await knex.raw(
    `create table ??.purchase_intents (
      order_id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      key_id text,
      idempotency_key text,
      bundle text not null,
      quantity integer not null,
      state text not null default 'pending' check (state in ('pending', 'recorded', 'released', 'void')),
      created_at bigint not null,
      next_check_at bigint not null,
      finished_at bigint
    )`,
    [SCHEMA],
  );
  // A request (API key, Idempotency-Key) has at most one purchase in flight; once it is recorded,
  // released or void, the key's stored answer (or a new purchase) takes over.
  await knex.raw(
    `create unique index purchase_intents_request_idx on ??.purchase_intents (key_id, idempotency_key)
       where state = 'pending' and key_id is not null`,
    [SCHEMA],
  );
  await knex.raw("create index purchase_intents_due_idx on ??.purchase_intents (next_check_at) where state = 'pending'", [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.purchase_intents', [SCHEMA]);
  await knex.raw('drop table if exists ??.supplier_reports', [SCHEMA]);
  await knex.raw('drop index if exists ??.esims_supplier_check_idx', [SCHEMA]);
  await knex.raw('alter table ??.esims drop column supplier_checked_at, drop column supplier_observed_at', [SCHEMA]);
}
