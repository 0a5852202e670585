import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Live eSIMs the supplier has terminated (a cancel) whose move to `expired` is not recorded
 * yet. The cancel writes the row on its own right after the supplier confirms, then moves the
 * eSIM and deletes the row in one transaction; if that transaction fails, the row survives and
 * the next PATCH or sweeper pass applies the move. Times are Unix milliseconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.supplier_terminations (
      esim_id text primary key,
      terminated_at bigint not null
    )`,
    [SCHEMA],
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.supplier_terminations', [SCHEMA]);
}
