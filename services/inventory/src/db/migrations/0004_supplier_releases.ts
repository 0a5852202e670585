import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Live profiles the supplier delivered for an order we then failed to record (the order
 * transaction rolled back): each row is released at the supplier by a worker, with retries, so
 * no supplier order is silently left behind. Times are Unix milliseconds (retries are short).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.supplier_releases (
      order_reference text primary key,
      account_id text not null,
      iccids text[] not null,
      reason text not null,
      status text not null default 'pending' check (status in ('pending', 'released', 'abandoned')),
      attempts integer not null default 0,
      next_attempt_at bigint not null,
      last_error text,
      created_at bigint not null,
      finished_at bigint
    )`,
    [SCHEMA],
  );
  await knex.raw("create index supplier_releases_due_idx on ??.supplier_releases (next_attempt_at) where status = 'pending'", [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.supplier_releases', [SCHEMA]);
}
