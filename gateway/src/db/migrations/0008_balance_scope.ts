import type { Knex } from 'knex';

// Every scope a key could hold before `balance:read` existed, and after, in catalogue order.
const SCOPES_BEFORE = [
  'catalogue:read',
  'esim:read',
  'esim:write',
  'events:read',
  'events:write',
  'webhooks:read',
  'webhooks:write',
  'keys:read',
  'test_helpers',
];
const SCOPES_AFTER = [...SCOPES_BEFORE.slice(0, 8), 'balance:read', 'test_helpers'];

/**
 * `balance:read` (GET /v1/balance, /v1/balance_transactions, /v1/refunds; record 0156): a key issued
 * without a scope list holds every scope, and was stored with every scope there was; such keys get
 * the new one too, so an unrestricted key stays unrestricted. A key the operator restricted keeps
 * exactly what it was given. Keys are read from the database on a cache miss, so the change reaches
 * the gateways within the key cache's lifetime.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`update gateway.api_keys set scopes = ?::text[] where scopes @> ?::text[] and not ('balance:read' = any(scopes))`, [
    `{${SCOPES_AFTER.join(',')}}`,
    `{${SCOPES_BEFORE.join(',')}}`,
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw("update gateway.api_keys set scopes = array_remove(scopes, 'balance:read')");
}
