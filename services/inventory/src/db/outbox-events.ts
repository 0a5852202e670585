import type { Environment, EventType } from '@connectivity/contracts';
import { createOutbox, monotonicUlid, outboxEntry, type InternalEvent, type OneStatement } from '@connectivity/platform';
import type { Knex } from 'knex';
import { SCHEMA } from './schema.ts';

const outbox = createOutbox(SCHEMA);

// Events of one transaction are published in id order (they share the transaction's created_at),
// so their ids must grow within a millisecond too: a monotonic ULID does that. Ids take the real
// time even when `time` is a test clock's: a clock in the future would otherwise hold every later
// id of the process at its time (the factory never goes back), and ids sort by when they were made.
const nextUlid = monotonicUlid();

export interface NewInventoryEvent {
  type: EventType;
  environment: Environment;
  accountId: string;
  data: Record<string, unknown>;
}

/** An event of inventory's, happened at `now` (the real time, or a test clock's). */
export function inventoryEvent(event: NewInventoryEvent, now: Date): InternalEvent {
  return {
    object: 'event',
    id: `evt_${nextUlid(Date.now()).toLowerCase()}`,
    type: event.type,
    time: now.toISOString(),
    created_at: Math.floor(now.getTime() / 1000),
    environment: event.environment,
    data: event.data,
    account_id: event.accountId,
  };
}

/** Writes the event to the outbox in the transaction of the change that causes it (record 0253). */
export async function addEvent(trx: Knex.Transaction, event: NewInventoryEvent, now: Date): Promise<void> {
  await outbox.add(trx, outboxEntry(inventoryEvent(event, now)));
}

/** `addEvent` for a change made by one statement (see `oneStatement`). */
export function addEventTo(statement: OneStatement, db: Knex, event: NewInventoryEvent, now: Date): void {
  outbox.addTo(statement, db, outboxEntry(inventoryEvent(event, now)));
}
