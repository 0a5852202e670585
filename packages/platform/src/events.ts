import type { Environment, EventType } from '@connectivity/contracts';
import { newId } from './ids.ts';

/**
 * An event as it travels on the bus and sits in the outbox: the public envelope of the spec
 * plus the owning account, which notifications needs to route it and never shows.
 */
export interface InternalEvent<D = Record<string, unknown>> {
  object: 'event';
  id: string;
  type: EventType;
  time: string;
  created_at: number;
  environment: Environment;
  data: D;
  account_id: string;
}

export interface NewEvent<D> {
  type: EventType;
  environment: Environment;
  accountId: string;
  data: D;
  now?: Date;
}

/** Builds an event: id `evt_...`, `time` RFC 3339 with ms, `created_at` Unix seconds. */
export function buildEvent<D>({ type, environment, accountId, data, now = new Date() }: NewEvent<D>): InternalEvent<D> {
  return {
    object: 'event',
    id: newId('event', now.getTime()),
    type,
    time: now.toISOString(),
    created_at: Math.floor(now.getTime() / 1000),
    environment,
    data,
    account_id: accountId,
  };
}

/** Subjects are `events.<environment>.<type>` (ARCHITECTURE.md, data flow step 4). */
export const eventSubject = (environment: Environment, type: EventType): string => `events.${environment}.${type}`;

/** The outbox row for an event: message id = event id, so a re-publish is de-duplicated. */
export const outboxEntry = (event: InternalEvent<unknown>) => ({
  id: event.id,
  subject: eventSubject(event.environment, event.type),
  payload: event,
});

/** What integrators see: the envelope without the internal routing field. */
export function publicEvent<D>(event: InternalEvent<D>): Omit<InternalEvent<D>, 'account_id'> {
  const { account_id: _accountId, ...rest } = event;
  return rest;
}
