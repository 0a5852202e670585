import type { Knex } from 'knex';

/** The first key of the advisory lock that serialises the opening of one API key's streams. */
const OPEN_STREAM_LOCK = 0x5eed;

const ttl = (ms: number) => `now() + ${Math.max(1, Math.floor(ms))} * interval '1 millisecond'`;

/**
 * Takes a lease for a stream of `keyId` unless the key already has `max` open (unexpired) ones,
 * atomically across instances: the count and the insert run under a transaction-scoped advisory
 * lock on the key, so two opens at once cannot both see room for one. Times are the database's,
 * so instances with different clocks agree on what has expired.
 */
export async function acquireStreamLease(knex: Knex, lease: { id: string; keyId: string; accountId: string; ttlMs: number }, max: number): Promise<boolean> {
  return knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [OPEN_STREAM_LOCK, lease.keyId]);
    // The key's leases that expired (their instance died) go first; they never count.
    await trx.raw('delete from notifications.stream_leases where key_id = ? and expires_at <= now()', [lease.keyId]);
    const counted = await trx.raw<{ rows: { open: string }[] }>('select count(*) as open from notifications.stream_leases where key_id = ?', [lease.keyId]);
    if (Number(counted.rows[0]?.open ?? 0) >= max) return false;
    await trx.raw(`insert into notifications.stream_leases (id, key_id, account_id, expires_at) values (?, ?, ?, ${ttl(lease.ttlMs)})`, [
      lease.id,
      lease.keyId,
      lease.accountId,
    ]);
    return true;
  });
}

/** Extends this instance's open leases by `ttlMs` from now, in one statement. */
export async function renewStreamLeases(knex: Knex, ids: readonly string[], ttlMs: number): Promise<void> {
  if (ids.length === 0) return;
  await knex.raw(`update notifications.stream_leases set expires_at = ${ttl(ttlMs)} where id = any(?)`, [[...ids]]);
}

export async function releaseStreamLease(knex: Knex, id: string): Promise<void> {
  await knex('notifications.stream_leases').where({ id }).delete();
}

/** Deletes up to `limit` leases that expired (of instances that died); how many went. */
export async function pruneExpiredStreamLeases(knex: Knex, limit: number): Promise<number> {
  const expired = knex('notifications.stream_leases').select('id').where('expires_at', '<=', knex.raw('now()')).limit(limit);
  return knex('notifications.stream_leases').whereIn('id', expired).delete();
}
