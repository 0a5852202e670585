import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Quotas and retention of test data (records 0212, 0213):
 * - `test_esims_per_day`: the test eSIMs an account created per UTC day (days since the epoch),
 *   counted in the statement that writes the order, so concurrent orders cannot pass the quota;
 * - indexes for the retention sweep: test orders and clocks by age (an order's eSIMs are
 *   found by `esims_order_idx`), live rows never in them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.test_esims_per_day (
      account_id text not null,
      day integer not null,
      created integer not null check (created >= 0),
      primary key (account_id, day)
    )`,
    [SCHEMA],
  );
  await knex.raw("create index orders_test_retention_idx on ??.orders (created_at) where environment = 'test'", [SCHEMA]);
  await knex.raw("create index test_clocks_retention_idx on ??.test_clocks (created_at) where environment = 'test'", [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists ??.test_clocks_retention_idx', [SCHEMA]);
  await knex.raw('drop index if exists ??.orders_test_retention_idx', [SCHEMA]);
  await knex.raw('drop table if exists ??.test_esims_per_day', [SCHEMA]);
}
