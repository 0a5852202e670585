import type { Environment, Metadata } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

export interface OrderRecord {
  id: string;
  account_id: string;
  environment: Environment;
  bundle: string;
  quantity: number;
  price_cents: number;
  total_cents: number;
  currency: string;
  metadata: Metadata;
  test_clock: string | null;
  created_at: number;
}

/** The order's row, not yet written (see `oneStatement`). */
export function orderInsertion(db: Knex, order: OrderRecord): Knex.QueryBuilder {
  return db
    .withSchema(SCHEMA)
    .table('orders')
    .insert({ ...order, metadata: JSON.stringify(order.metadata) });
}

/**
 * A sandbox order's row, written only if its account has no simulated balance in use (record 0157):
 * made a required write of the order's one statement, so the check costs no round trip of its own
 * and an account with a balance is refused, whole, to take the path that pays.
 */
export function unpaidSandboxOrderInsertion(db: Knex, order: OrderRecord): Knex.QueryBuilder {
  const row: Record<string, unknown> = { ...order, metadata: JSON.stringify(order.metadata) };
  const columns = Object.keys(row);
  const balanceInUse = db.withSchema(SCHEMA).from('balances').select(db.raw('1')).where({ account_id: order.account_id, environment: 'test', enforced: true });
  return db
    .into(db.raw(`??.?? (${columns.map(() => '??').join(', ')})`, [SCHEMA, 'orders', ...columns]))
    .insert(db.select(columns.map((column) => db.raw('? as ??', [row[column] as Knex.Value, column]))).whereNotExists(balanceInUse));
}
