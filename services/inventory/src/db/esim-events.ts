import type { EsimState } from '@connectivity/contracts';
import { createOutbox, monotonicUlid, outboxEntry, type InternalEvent, type OneStatement } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { EsimRecord } from '../domain/esim.ts';
import { esimEventData, esimEventType, type EsimChange } from '../domain/esim-events.ts';
import { updateEsimRow } from './esim-repository.ts';
import { SCHEMA } from './schema.ts';

const outbox = createOutbox(SCHEMA);

// Events of one transaction are published in id order (they share the transaction's created_at),
// so their ids must grow within a millisecond too: a monotonic ULID does that. Ids take the real
// time even when `time` is a test clock's: a clock in the future would otherwise hold every later
// id of the process at its time (the factory never goes back), and ids sort by when they were made.
const nextUlid = monotonicUlid();

function eventOf(change: EsimChange, now: Date): InternalEvent {
  return {
    object: 'event',
    id: `evt_${nextUlid(Date.now()).toLowerCase()}`,
    type: esimEventType(change),
    time: now.toISOString(),
    created_at: Math.floor(now.getTime() / 1000),
    environment: change.esim.environment,
    data: esimEventData(change),
    account_id: change.esim.account_id,
  };
}

/**
 * Writes the events of `changes` to the outbox in the transaction that made the changes, so
 * they are published if and only if it commits (DECISIONS.md "Events"). `now` is when they
 * happened: the real time, or the test clock's time for an eSIM on a clock.
 */
export async function recordEsimEvents(trx: Knex.Transaction, changes: readonly EsimChange[], now = new Date()): Promise<void> {
  for (const change of changes) await outbox.add(trx, outboxEntry(eventOf(change, now)));
}

/** `recordEsimEvents` for a change made by one statement (see `oneStatement`). */
export function addEsimEvents(statement: OneStatement, db: Knex, changes: readonly EsimChange[], now: Date): void {
  for (const change of changes) outbox.addTo(statement, db, outboxEntry(eventOf(change, now)));
}

/** Moves the locked eSIM to `to` at `at` and writes the event of that state, in the caller's transaction. */
export async function moveEsim(trx: Knex.Transaction, esim: EsimRecord, to: EsimState, at: Date): Promise<EsimRecord> {
  const moved: EsimRecord = { ...esim, state: to, updated_at: Math.floor(at.getTime() / 1000) };
  await updateEsimRow(trx, esim.id, { state: to, updated_at: moved.updated_at });
  await recordEsimEvents(trx, [{ kind: 'state', esim: moved, previous_state: esim.state }], at);
  return moved;
}
