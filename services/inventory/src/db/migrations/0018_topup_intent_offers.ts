import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * A live top-up's purchase intent keeps the offer it buys (record 0259): the bundle's data, validity and
 * price as they were priced, so the purchase-intent worker can record a top-up that was bought and never
 * recorded (nobody retried its request) exactly as the request would have. Null for an order's intent and
 * for top-up intents written before this migration.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.purchase_intents add column topup_offer jsonb', [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.purchase_intents drop column topup_offer', [SCHEMA]);
}
