import { context, propagation } from '@opentelemetry/api';
import type { Knex } from 'knex';
import { assertPublishInput } from '../bus/rules.ts';
import type { OneStatement } from '../db/one-statement.ts';
import { signalAfterCommit, signalWork } from '../work/signals.ts';
import { OUTBOX_TABLE } from './migration.ts';
import { outboxSignal } from './relay.ts';

export interface OutboxEvent {
  /** The event id; also the bus message id, so a re-publish is dropped as a duplicate. */
  id: string;
  /** Full subject, e.g. `events.test.esim.released`. */
  subject: string;
  /** JSON-serialisable payload. */
  payload: unknown;
  /** Extra message headers; the active trace context is added unless `traceparent` is given. */
  headers?: Record<string, string>;
}

export interface Outbox {
  /** Stores the event in the caller's transaction: it is published only if that transaction commits. */
  add(trx: Knex.Transaction, event: OutboxEvent): Promise<void>;
  /** Adds the event's row to `statement`, the one statement that makes the change (see `oneStatement`). */
  addTo(statement: OneStatement, db: Knex, event: OutboxEvent): void;
}

export function createOutbox(schema: string): Outbox {
  /** The event's row, built in the request's context and not yet written. */
  const insertion = (db: Knex, event: OutboxEvent): Knex.QueryBuilder => {
    if (event.payload === undefined) throw new TypeError(`outbox event ${event.id} has no payload`);
    // The relay publishes these headers, so the consumer continues the trace of the request
    // that caused the event, not of the relay's poll.
    const carrier: Record<string, string> = {};
    propagation.inject(context.active(), carrier);
    const headers = { ...carrier, ...event.headers };
    // A subject or header the bus would refuse is a programming error: fail the request now
    // rather than store an event the relay can never publish.
    assertPublishInput({ id: event.id, subject: event.subject, payload: event.payload, headers });
    return db
      .withSchema(schema)
      .table(OUTBOX_TABLE)
      .insert({
        id: event.id,
        subject: event.subject,
        // Stringified by hand: `pg` would turn a top-level array into a Postgres array literal.
        payload: JSON.stringify(event.payload),
        headers: JSON.stringify(headers),
      });
  };

  return {
    async add(trx, event) {
      // Writing an event outside the business transaction would bring back the dual write the
      // outbox exists to avoid, so refuse a plain knex handle even if the types were bypassed.
      if (!trx.isTransaction) throw new TypeError('outbox.add needs the transaction of the change that causes the event');
      // The relay wakes as soon as this transaction commits, not at its next poll.
      signalAfterCommit(trx, outboxSignal(schema));
      await insertion(trx, event);
    },
    addTo(statement, db, event) {
      statement.add(insertion(db, event));
      statement.afterCommit(() => signalWork(outboxSignal(schema)));
    },
  };
}
