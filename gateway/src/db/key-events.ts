import type { EventType } from '@connectivity/contracts';
import { buildEvent, createOutbox, outboxEntry } from '@connectivity/platform';
import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';
import { toApiKey, type KeyRow } from '../domain/api-key.ts';

const outbox = createOutbox(SCHEMA);

/**
 * Writes an `api_key.*` event in the transaction of the change that causes it, so the event
 * exists exactly when the change does (record 0253). `data` is `{ object: <key> }`.
 */
export async function recordKeyEvent(trx: Knex.Transaction, type: Extract<EventType, `api_key.${string}`>, key: KeyRow): Promise<void> {
  const event = buildEvent({ type, environment: key.environment, accountId: key.account_id, data: { object: toApiKey(key) } });
  await outbox.add(trx, outboxEntry(event));
}
