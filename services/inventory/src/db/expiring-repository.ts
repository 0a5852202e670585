import type { ExpiringMark } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import type { ExpiringNotified } from '../domain/expiring.ts';
import { esimFromRow, type EsimRow, type SupplierColumns } from './esim-repository.ts';
import { addEvent } from './outbox-events.ts';
import { SCHEMA } from './schema.ts';

const esims = (db: Knex) => db.withSchema(SCHEMA).from('esims');

/** An eSIM's row with what `esim.expiring` remembers of it. */
export type ExpiringRow = EsimRow & SupplierColumns;

/** The eSIM of a row and its last notice. */
export const expiringOf = (row: ExpiringRow): { esim: EsimRecord; notified: ExpiringNotified } => ({
  esim: esimFromRow(row),
  notified: {
    for: row.expiring_notified_for == null ? null : Number(row.expiring_notified_for),
    days: row.expiring_notified_days == null ? null : (Number(row.expiring_notified_days) as ExpiringMark),
  },
});

// Mark `days` is reached by `now` and falls after the eSIM was created; sent for this end (or a nearer one
// was), an end less than a day later than the one announced being the same (see `markSent`).
const reached = (days: number) => `(expires_at - ${days * 86_400} <= :now and expires_at - ${days * 86_400} > created_at)`;
const sent = (days: number) => `coalesce(expires_at - expiring_notified_for < 86400 and expiring_notified_days <= ${days}, false)`;

/**
 * Where an eSIM has an `esim.expiring` due at `now` (unix seconds): not expired, before its end, and its
 * nearest reached mark not sent yet. `dueExpiringMark` in `domain/expiring.ts` is the same rule.
 */
function whereExpiringDue(query: Knex.QueryBuilder, now: number): Knex.QueryBuilder {
  return query
    .whereNot('state', 'expired')
    .andWhere('expires_at', '>', now)
    .andWhereRaw(`((${reached(1)} and not ${sent(1)}) or (${reached(3)} and not ${reached(1)} and not ${sent(3)}))`, { now });
}

/**
 * eSIMs in real time with an `esim.expiring` due (the sweeper's rows, see `sweepDue`), nearest end first:
 * sandbox eSIMs not on a test clock (a clock's advance sends theirs) and live eSIMs whose supplier sends
 * no notices of its own (eSIM Go; Airalo's become the event, record 0236).
 */
export function esimsExpiringDue(db: Knex, now: number): Knex.QueryBuilder {
  return whereExpiringDue(esims(db).select('*').whereNull('test_clock').andWhere('vendor_notices_expiry', false), now).orderBy('expires_at');
}

/** Locks up to `limit` eSIMs of a test clock with an `esim.expiring` due at the clock time `at`. Nothing is skipped (see `lockEsimsDueOnClock`). */
export async function lockEsimsExpiringOnClock(db: Knex, clockId: string, at: number, limit: number): Promise<ExpiringRow[]> {
  const query = whereExpiringDue(esims(db).select('*').where('test_clock', clockId), at);
  return (await query
    .orderBy([{ column: 'expires_at' }, { column: 'id' }])
    .limit(limit)
    .forUpdate()) as ExpiringRow[];
}

/** Remembers the notice on the locked eSIM and writes its `esim.expiring` at `at`, in the caller's transaction. */
export async function notifyExpiring(trx: Knex.Transaction, esim: EsimRecord, days: ExpiringMark, at: Date): Promise<void> {
  await esims(trx).where('id', esim.id).update({ expiring_notified_for: esim.expires_at, expiring_notified_days: days });
  await addEvent(
    trx,
    { type: 'esim.expiring', environment: esim.environment, accountId: esim.account_id, data: { object: toPublicEsim(esim), days_left: days } },
    at,
  );
}

/** The supplier of this eSIM sends its own notices before the end: the sweeper leaves it to them (record 0236). */
export async function markVendorNoticesExpiry(trx: Knex.Transaction, esimId: string): Promise<void> {
  await esims(trx).where({ id: esimId, vendor_notices_expiry: false }).update({ vendor_notices_expiry: true });
}
