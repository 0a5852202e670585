import type { EsimState } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { EsimRecord } from '../domain/esim.ts';
import type { TopupRecord } from '../domain/topup.ts';
import { SCHEMA } from './schema.ts';

type TopupRow = Omit<TopupRecord, 'data_limit_bytes' | 'duration_days' | 'price_cents' | 'previous_expires_at' | 'expires_at' | 'created_at'> & {
  // bigint columns arrive as strings from `pg`.
  data_limit_bytes: string | number | null;
  duration_days: string | number | null;
  price_cents: string | number;
  previous_expires_at: string | number | null;
  expires_at: string | number | null;
  created_at: string | number;
};

const numOrNull = (value: string | number | null): number | null => (value === null ? null : Number(value));

const fromRow = (row: TopupRow): TopupRecord => ({
  ...row,
  data_limit_bytes: numOrNull(row.data_limit_bytes),
  duration_days: numOrNull(row.duration_days),
  price_cents: Number(row.price_cents),
  previous_expires_at: numOrNull(row.previous_expires_at),
  expires_at: numOrNull(row.expires_at),
  created_at: Number(row.created_at),
});

const topups = (db: Knex) => db.withSchema(SCHEMA).from('topups');

export async function insertTopup(db: Knex, record: TopupRecord): Promise<void> {
  await topups(db).insert(record);
}

export async function findTopup(db: Knex, id: string): Promise<TopupRecord | undefined> {
  const row = (await topups(db).select('*').where('id', id).first()) as TopupRow | undefined;
  return row && fromRow(row);
}

/** The top-ups of an eSIM in the order they were bought (the order their bundles are used in). */
export async function topupsOfEsim(db: Knex, esimId: string): Promise<TopupRecord[]> {
  const rows = (await topups(db)
    .select('*')
    .where('esim_id', esimId)
    .orderBy([{ column: 'created_at' }, { column: 'id' }])) as TopupRow[];
  return rows.map(fromRow);
}

/** The state the eSIM was in when it last expired (kept by a trigger, migration 0015); undefined if it never did. */
export async function stateBeforeExpiry(db: Knex, esimId: string): Promise<Exclude<EsimState, 'expired'> | undefined> {
  const row = (await db.withSchema(SCHEMA).from('esim_states_before_expiry').select('state').where('esim_id', esimId).first()) as
    { state: Exclude<EsimState, 'expired'> } | undefined;
  return row?.state;
}

/** Writes what a top-up changes on the locked eSIM: its data, validity, thresholds and (revived) state. */
export async function saveToppedUpEsim(db: Knex, esim: EsimRecord): Promise<void> {
  await db.withSchema(SCHEMA).from('esims').where('id', esim.id).update({
    data_limit_bytes: esim.data_limit_bytes,
    expires_at: esim.expires_at,
    validity_days: esim.validity_days,
    thresholds_notified: esim.thresholds_notified,
    state: esim.state,
    expired_reason: esim.expired_reason,
    updated_at: esim.updated_at,
  });
}
