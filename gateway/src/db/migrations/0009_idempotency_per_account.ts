import type { Knex } from 'knex';

/**
 * An Idempotency-Key belongs to the account and environment, not to the API key (record 0200):
 * the edge's records keyed by a key id are moved to that key's owner, `<account>/<environment>`,
 * so a retry sent with a rotated key is still matched with the request it repeats. Where two keys
 * of one owner used the same Idempotency-Key, the newest record stays (a client that rotated
 * and reused a key went on with the newer request).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    delete from gateway.idempotency_records r
    using gateway.api_keys k, gateway.idempotency_records newer, gateway.api_keys nk
    where k.id = r.key_id and nk.id = newer.key_id
      and nk.account_id = k.account_id and nk.environment = k.environment
      and newer.idempotency_key = r.idempotency_key and newer.key_id <> r.key_id
      and (newer.created_at, newer.key_id) > (r.created_at, r.key_id)`);
  await knex.raw(`
    update gateway.idempotency_records r set key_id = k.account_id || '/' || k.environment
    from gateway.api_keys k where k.id = r.key_id`);
}

/** Records keyed by owner stay as they are: unmatched by key ids, they expire with their retention. */
export async function down(): Promise<void> {}
