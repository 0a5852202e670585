import type { Knex } from 'knex';

/**
 * Signing secrets move to `secret_sealed` (AES-256-GCM, see secrets/secret-box.ts). A migration
 * has no key, so rows written before this one keep their plain `secret` until the service seals
 * them at start and clears it (sealLegacySecrets); from then on `secret` stays null.
 * Also the indexes retention pruning needs: events by age, deliveries by event.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table notifications.endpoints add column secret_sealed text');
  await knex.raw('alter table notifications.endpoints alter column secret drop not null');
  await knex.raw(`alter table notifications.endpoints add constraint endpoints_secret_present check (secret is not null or secret_sealed is not null)`);
  await knex.raw('create index events_by_age on notifications.events (created_at)');
  await knex.raw('create index deliveries_by_event on notifications.deliveries (event_id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists notifications.deliveries_by_event');
  await knex.raw('drop index if exists notifications.events_by_age');
  await knex.raw('alter table notifications.endpoints drop constraint if exists endpoints_secret_present');
  // A migration has no key to unseal with: rolling back loses the sealed secrets, and those
  // endpoints have to be created again.
  await knex.raw('delete from notifications.attempts a using notifications.endpoints e where a.endpoint_id = e.id and e.secret is null');
  await knex.raw('delete from notifications.deliveries d using notifications.endpoints e where d.endpoint_id = e.id and e.secret is null');
  await knex.raw('delete from notifications.endpoints where secret is null');
  await knex.raw('alter table notifications.endpoints drop column secret_sealed');
  await knex.raw('alter table notifications.endpoints alter column secret set not null');
}
