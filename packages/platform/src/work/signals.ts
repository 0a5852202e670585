import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';

/**
 * Work signals: a commit that made work for a background worker of this process (an outbox row,
 * a delivery, a release) says so by name, and the worker's poller wakes at once instead of at
 * its next poll. Only a hint: the database stays the truth, and pollers still poll. Workers of
 * other processes learn of work from the bus message that carries it (a consumed event), or
 * from their own poll.
 */
const signals = new EventEmitter();
signals.setMaxListeners(0);

/** Wakes every poller of this process listening for `name`. */
export function signalWork(name: string): void {
  signals.emit(name);
}

/** Calls `listener` on each signal of `name`; returns the unsubscribe. */
export function onWork(name: string, listener: () => void): () => void {
  signals.on(name, listener);
  return () => signals.off(name, listener);
}

const pending = new WeakMap<Knex.Transaction, Set<string>>();

/**
 * Signals `name` once `trx` has committed (never if it rolls back): the work it wrote becomes
 * visible at that moment. Several calls in one transaction signal once.
 */
export function signalAfterCommit(trx: Knex.Transaction, name: string): void {
  let names = pending.get(trx);
  if (!names) {
    names = new Set();
    pending.set(trx, names);
    const fire = names;
    trx.executionPromise.then(
      () => {
        for (const signal of fire) signalWork(signal);
      },
      () => undefined,
    );
  }
  names.add(name);
}
