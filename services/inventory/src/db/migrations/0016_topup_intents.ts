import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * A live top-up's purchase intent names the profile it tops up (record 0247): an intent nobody retried is
 * looked for on that profile at the vendor, since a top-up adds a bundle to an eSIM and makes no order of
 * profiles that `findOrder` could find. Null for an order's intent.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.purchase_intents add column iccid text', [SCHEMA]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table ??.purchase_intents drop column iccid', [SCHEMA]);
}
