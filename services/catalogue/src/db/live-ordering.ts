import type { LiveOrdering } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

interface LiveOrderingRow {
  account_id: string;
  enabled: boolean;
  updated_at: string | number;
}

const toSetting = (row: LiveOrderingRow): LiveOrdering => ({
  object: 'live_ordering',
  account_id: row.account_id,
  enabled: row.enabled,
  updated_at: Number(row.updated_at),
});

const table = (db: Knex) => db.withSchema(SCHEMA).from('live_ordering');

/** The operator's live-ordering switch of an account; an account never set has it on. */
export async function findLiveOrdering(db: Knex, accountId: string): Promise<LiveOrdering> {
  const row = (await table(db).select('account_id', 'enabled', 'updated_at').where('account_id', accountId).first()) as LiveOrderingRow | undefined;
  return row ? toSetting(row) : { object: 'live_ordering', account_id: accountId, enabled: true, updated_at: null };
}

export async function saveLiveOrdering(db: Knex, accountId: string, enabled: boolean, now = new Date()): Promise<LiveOrdering> {
  const updated_at = Math.floor(now.getTime() / 1000);
  const [row] = await table(db)
    .insert({ account_id: accountId, enabled, updated_at })
    .onConflict('account_id')
    .merge({ enabled, updated_at })
    .returning<LiveOrderingRow[]>(['account_id', 'enabled', 'updated_at']);
  if (!row) throw new Error('upsert returned no row');
  return toSetting(row);
}
