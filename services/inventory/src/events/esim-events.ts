import type { EsimState, EventType, UsageThreshold } from '@connectivity/contracts';
import { createOutbox, monotonicUlid, outboxEntry, type InternalEvent, type OneStatement } from '@connectivity/platform';
import type { Knex } from 'knex';
import { STATE_EVENT_TYPES, toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { SCHEMA } from '../db/schema.ts';

const outbox = createOutbox(SCHEMA);

// Events of one transaction are published in id order (they share the transaction's created_at),
// so their ids must grow within a millisecond too: a monotonic ULID does that. Ids take the real
// time even when `time` is a test clock's: a clock in the future would otherwise hold every later
// id of the process at its time (the factory never goes back), and ids sort by when they were made.
const nextUlid = monotonicUlid();

function buildEsimEvent(type: EventType, esim: EsimRecord, data: Record<string, unknown>, now: Date): InternalEvent {
  return {
    object: 'event',
    id: `evt_${nextUlid(Date.now()).toLowerCase()}`,
    type,
    time: now.toISOString(),
    created_at: Math.floor(now.getTime() / 1000),
    environment: esim.environment,
    data,
    account_id: esim.account_id,
  };
}

/** What one change of an eSIM announces, in order. */
export type EsimChange =
  | { kind: 'state'; esim: EsimRecord; previous_state: EsimState | null }
  | { kind: 'threshold'; esim: EsimRecord; threshold_percent: UsageThreshold };

function eventOf(change: EsimChange, now: Date): InternalEvent {
  const object = toPublicEsim(change.esim);
  if (change.kind === 'state') {
    return buildEsimEvent(STATE_EVENT_TYPES[change.esim.state], change.esim, { object, previous_state: change.previous_state }, now);
  }
  return buildEsimEvent(
    'esim.usage.threshold',
    change.esim,
    {
      object,
      threshold_percent: change.threshold_percent,
      data_used_bytes: change.esim.data_used_bytes,
      data_limit_bytes: change.esim.data_limit_bytes,
    },
    now,
  );
}

/**
 * Writes the events of `changes` to the outbox in the transaction that made the changes, so
 * they are published if and only if it commits (DECISIONS.md "Events"). `now` is when they
 * happened: the real time, or the test clock's time for an eSIM on a clock.
 */
export async function recordEsimEvents(trx: Knex.Transaction, changes: EsimChange[], now = new Date()): Promise<InternalEvent[]> {
  const events = changes.map((change) => eventOf(change, now));
  for (const event of events) await outbox.add(trx, outboxEntry(event));
  return events;
}

/** `recordEsimEvents` for a change made by one statement (see `oneStatement`). */
export function addEsimEvents(statement: OneStatement, db: Knex, changes: EsimChange[], now: Date): void {
  for (const change of changes) outbox.addTo(statement, db, outboxEntry(eventOf(change, now)));
}
