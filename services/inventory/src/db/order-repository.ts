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
