import type { Knex } from 'knex';

/**
 * Throwaway test keys: extra keys a tool issues to make `api_key.*` events happen without
 * replacing the account's key (`pnpm cli trigger api_key.*`). "One active key per environment"
 * now holds for the account's own key; throwaway keys stand beside it until revoked.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table gateway.api_keys add column throwaway boolean not null default false');
  await knex.raw('drop index gateway.api_keys_one_active');
  await knex.raw(`create unique index api_keys_one_active on gateway.api_keys (account_id, environment) where status = 'active' and not throwaway`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index gateway.api_keys_one_active');
  await knex.raw("update gateway.api_keys set status = 'revoked', revoked_at = now() where throwaway and status = 'active'");
  await knex.raw(`create unique index api_keys_one_active on gateway.api_keys (account_id, environment) where status = 'active'`);
  await knex.raw('alter table gateway.api_keys drop column throwaway');
}
