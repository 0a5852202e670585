import type { Environment } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { EndpointRecord } from '../domain/endpoint.ts';
import { CLOSED_CIRCUIT } from './endpoint-circuit-repository.ts';

const TABLE = 'notifications.endpoints';

interface EndpointRow {
  id: string;
  account_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabled_events: string[];
  disabled: boolean;
  disabled_reason: string | null;
  created_at: string | number;
  updated_at: string | number;
}

const toRecord = (row: EndpointRow): EndpointRecord => ({
  id: row.id,
  accountId: row.account_id,
  environment: row.environment,
  url: row.url,
  description: row.description,
  enabledEvents: row.enabled_events,
  disabled: row.disabled,
  disabledReason: row.disabled_reason,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

/** Postgres' unique_violation: the (account, environment, url) index refused a duplicate. */
export const isUniqueViolation = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === '23505';

/** The endpoint was not inserted: its account and environment already have `limit` endpoints. */
export class EndpointLimitReached extends Error {
  override readonly name = 'EndpointLimitReached';
}

/**
 * Inserts an endpoint with its sealed secret, unless the account and environment already have
 * `limit` endpoints. A transaction-scoped advisory lock on (account, environment) makes the
 * count and the insert one step, so concurrent creates can never pass the limit together.
 */
export async function insertEndpoint(knex: Knex, endpoint: EndpointRecord, sealedSecret: string, limit: number): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`webhook-endpoints:${endpoint.accountId}:${endpoint.environment}`]);
    const [row] = await trx(TABLE)
      .where({ account_id: endpoint.accountId, environment: endpoint.environment })
      .whereNull('deleted_at')
      .count<{ n: string }[]>({ n: '*' });
    if (Number(row?.n ?? 0) >= limit) throw new EndpointLimitReached();
    await trx(TABLE).insert({
      id: endpoint.id,
      account_id: endpoint.accountId,
      environment: endpoint.environment,
      url: endpoint.url,
      description: endpoint.description,
      enabled_events: JSON.stringify(endpoint.enabledEvents),
      secret_sealed: sealedSecret,
      disabled: endpoint.disabled,
      disabled_reason: endpoint.disabledReason,
      created_at: endpoint.createdAt,
      updated_at: endpoint.updatedAt,
    });
  });
}

/** An endpoint of the account that is not deleted, in either environment (the caller checks which). */
export async function findEndpoint(knex: Knex, accountId: string, id: string): Promise<EndpointRecord | undefined> {
  const row = (await knex(TABLE).where({ id, account_id: accountId }).whereNull('deleted_at').first()) as EndpointRow | undefined;
  return row && toRecord(row);
}

/** A page of the caller's endpoints, newest first (ids sort by creation time). */
export async function listEndpoints(
  knex: Knex,
  scope: { accountId: string; environment: Environment },
  afterId: string | undefined,
  fetch: number,
): Promise<EndpointRecord[]> {
  const query = knex(TABLE).where({ account_id: scope.accountId, environment: scope.environment }).whereNull('deleted_at').orderBy('id', 'desc').limit(fetch);
  if (afterId !== undefined) query.andWhere('id', '<', afterId);
  return ((await query) as EndpointRow[]).map(toRecord);
}

export interface EndpointChanges {
  url?: string;
  enabledEvents?: string[];
  description?: string | null;
  disabled?: boolean;
}

/**
 * Applies a PATCH. Enabling clears the reason and the failure streak; disabling by the owner
 * leaves no reason (the reason is for what the service did) and stops pending deliveries. A new
 * URL or enabling closes the circuit: the owner changed something, so it is tried again at once.
 */
export async function updateEndpoint(knex: Knex, id: string, changes: EndpointChanges, now: number): Promise<void> {
  await knex.transaction(async (trx) => {
    const patch: Record<string, unknown> = { updated_at: now };
    if (changes.url !== undefined) Object.assign(patch, { url: changes.url }, CLOSED_CIRCUIT);
    if (changes.enabledEvents !== undefined) patch.enabled_events = JSON.stringify(changes.enabledEvents);
    if (changes.description !== undefined) patch.description = changes.description;
    if (changes.disabled === false) Object.assign(patch, { disabled: false, disabled_reason: null, failing_since: null }, CLOSED_CIRCUIT);
    if (changes.disabled === true) Object.assign(patch, { disabled: true, disabled_reason: null });
    await trx(TABLE).where({ id }).update(patch);
    if (changes.disabled === true) await cancelPendingDeliveries(trx, id);
  });
}

/** DELETE terminates the endpoint: it stops receiving, and its URL may be registered again. */
export async function deleteEndpoint(knex: Knex, id: string, now: number): Promise<void> {
  await knex.transaction(async (trx) => {
    await trx(TABLE).where({ id }).update({ deleted_at: now, updated_at: now });
    await cancelPendingDeliveries(trx, id);
  });
}

/** The service disables an endpoint (410, or days of failures) with the reason shown on it. */
export async function disableEndpoint(trx: Knex.Transaction, id: string, reason: string, now: number): Promise<void> {
  await trx(TABLE).where({ id }).update({ disabled: true, disabled_reason: reason, updated_at: now });
  await cancelPendingDeliveries(trx, id);
}

async function cancelPendingDeliveries(trx: Knex.Transaction, endpointId: string): Promise<void> {
  await trx('notifications.deliveries')
    .where({ endpoint_id: endpointId, status: 'pending' })
    .update({ status: 'cancelled', claim_token: null, updated_at: new Date() });
}
