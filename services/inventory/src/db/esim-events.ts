import type { EsimState, ExpiredReason } from '@connectivity/contracts';
import type { OneStatement } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { EsimRecord } from '../domain/esim.ts';
import { esimEventData, esimEventType, type EsimChange } from '../domain/esim-events.ts';
import { startSandboxValidity } from '../domain/validity.ts';
import { updateEsimRow } from './esim-repository.ts';
import { addEvent, addEventTo, type NewInventoryEvent } from './outbox-events.ts';

const eventOf = (change: EsimChange): NewInventoryEvent => ({
  type: esimEventType(change),
  environment: change.esim.environment,
  accountId: change.esim.account_id,
  data: esimEventData(change),
});

/**
 * Writes the events of `changes` to the outbox in the transaction that made the changes, so
 * they are published if and only if it commits (record 0253). `now` is when they
 * happened: the real time, or the test clock's time for an eSIM on a clock.
 */
export async function recordEsimEvents(trx: Knex.Transaction, changes: readonly EsimChange[], now = new Date()): Promise<void> {
  for (const change of changes) await addEvent(trx, eventOf(change), now);
}

/** `recordEsimEvents` for a change made by one statement (see `oneStatement`). */
export function addEsimEvents(statement: OneStatement, db: Knex, changes: readonly EsimChange[], now: Date): void {
  for (const change of changes) addEventTo(statement, db, eventOf(change), now);
}

/**
 * Moves the locked eSIM to `to` at `at` and writes the event of that state, in the caller's
 * transaction. Into `expired` only through `expireEsim`, which says why.
 */
export async function moveEsim(trx: Knex.Transaction, esim: EsimRecord, to: Exclude<EsimState, 'expired'>, at: Date): Promise<EsimRecord> {
  return move(trx, esim, { state: to, expired_reason: null }, at);
}

/** Expires the locked eSIM at `at` for `reason`, with its `esim.expired`, in the caller's transaction. */
export async function expireEsim(trx: Knex.Transaction, esim: EsimRecord, reason: ExpiredReason, at: Date): Promise<EsimRecord> {
  return move(trx, esim, { state: 'expired', expired_reason: reason }, at);
}

/** The move to `expired` for a patch or a plan that may name it: a cancel by the integrator. */
export async function moveOrCancelEsim(trx: Knex.Transaction, esim: EsimRecord, to: EsimState, at: Date): Promise<EsimRecord> {
  return to === 'expired' ? expireEsim(trx, esim, 'cancelled', at) : moveEsim(trx, esim, to, at);
}

async function move(trx: Knex.Transaction, esim: EsimRecord, to: Pick<EsimRecord, 'state' | 'expired_reason'>, at: Date): Promise<EsimRecord> {
  const seconds = Math.floor(at.getTime() / 1000);
  // The simulated first use (a sandbox move to `active`) starts a `first_use` validity; the event carries it.
  const moved: EsimRecord =
    to.state === 'active' ? startSandboxValidity({ ...esim, ...to, updated_at: seconds }, seconds) : { ...esim, ...to, updated_at: seconds };
  await updateEsimRow(trx, esim.id, { ...to, updated_at: moved.updated_at, ...(moved.expires_at !== esim.expires_at && { expires_at: moved.expires_at }) });
  await recordEsimEvents(trx, [{ kind: 'state', esim: moved, previous_state: esim.state }], at);
  return moved;
}
