import { EVENT_SUBJECT_FILTERS, eventSchema } from '@connectivity/contracts';
import { context, propagation } from '@opentelemetry/api';
import { createBatcher, observeGauge, type Bus, type Database, type InternalEvent, type Logger, type Subscription } from '@connectivity/platform';
import { z } from 'zod';
import { storeAndQueue, type EventToStore, type Stored } from '../db/events-repository.ts';
import { STREAMED_ENVIRONMENT } from '../domain/event-stream.ts';
import { announceStreamGrowth, flushStreamNotices } from './stream-notices.ts';

/** The durable consumer's name: every notifications instance shares it, so each event is handled once. */
export const EVENTS_DURABLE = 'notifications';
/** Messages handled at once, and so events stored by one statement at most. */
const CONCURRENCY = 8;

const internalEventSchema = eventSchema.extend({ account_id: z.string().min(1).max(200) });

/** A message that can never be stored: retrying will not help, so it goes to the dead letters. */
export class UnstorableEventError extends Error {
  override readonly name = 'UnstorableEventError';
}

export interface EventConsumerOptions {
  bus: Bus;
  db: Database;
  logger: Logger;
  maxDeliver: number;
  backoffMs: number[];
  /** Pending deliveries an account and environment may hold; past it, events are stored but not queued. */
  maxPendingPerAccount: number;
}

/** A tenant past its pending cap is told of in our logs once a minute, not once an event. */
const OVER_CAP_LOG_EVERY_MS = 60_000;

/**
 * Stores every event from the bus once (idempotent on the event id) and queues its deliveries
 * in the same transaction; the message is acked only after that commit (the handler resolves).
 * A failure is redelivered by the bus, and after `maxDeliver` failures dead-lettered, so a bad
 * message never blocks the ones behind it.
 */
export async function startEventConsumer(options: EventConsumerOptions): Promise<Subscription> {
  const { db, logger } = options;
  // The events of the messages handled at once are stored by one statement (and their acks go
  // out together). A batch that fails is stored event by event, so an event that cannot be
  // stored fails alone and the others are acked.
  const cap = options.maxPendingPerAccount;
  const store = createBatcher<EventToStore, Stored | undefined>({
    name: 'store events',
    max: CONCURRENCY,
    run: async (batch) => {
      try {
        return (await storeAndQueue(db.knex, batch, new Date(), cap)).map((value) => ({ status: 'fulfilled', value }));
      } catch (error) {
        if (batch.length === 1) throw error;
        // One by one, in order (so are their stream entries).
        const outcomes: PromiseSettledResult<Stored | undefined>[] = [];
        for (const one of batch) {
          try {
            outcomes.push({ status: 'fulfilled', value: (await storeAndQueue(db.knex, [one], new Date(), cap))[0] });
          } catch (reason) {
            outcomes.push({ status: 'rejected', reason });
          }
        }
        return outcomes;
      }
    },
  });
  const overCap = overCapLog(logger, cap);
  const subscription = await options.bus.subscribe(
    {
      durable: EVENTS_DURABLE,
      filterSubjects: [...EVENT_SUBJECT_FILTERS],
      maxDeliver: options.maxDeliver,
      backoffMs: options.backoffMs,
      concurrency: CONCURRENCY,
    },
    async (msg) => {
      const parsed = internalEventSchema.safeParse(msg.payload);
      if (!parsed.success) {
        logger.error({ message_id: msg.id, subject: msg.subject, delivery: msg.deliveryCount }, 'event is not a valid event envelope');
        throw new UnstorableEventError(`message ${msg.id} on ${msg.subject} is not a valid event envelope`);
      }
      const event = parsed.data as InternalEvent;
      // The bus runs this handler inside the trace the event was published in; keep it with the
      // event so its deliveries continue that trace.
      const traceContext: Record<string, string> = {};
      propagation.inject(context.active(), traceContext);
      const stored = await store.add({ event, traceContext });
      if (stored === undefined) {
        logger.debug({ event_id: event.id }, 'event already stored');
        return;
      }
      if (stored.overCap > 0) overCap.note(event, stored.overCap);
      // The deliveries queued with it wake the delivery worker (see `storeAndQueue`); the
      // streams of the account, on whichever instance, are told it is there.
      if (event.environment === STREAMED_ENVIRONMENT)
        announceStreamGrowth(options.bus, logger, { accountId: event.account_id, environment: event.environment });
      logger.debug({ event_id: event.id, type: event.type, deliveries: stored.queued }, 'event stored');
    },
  );
  const stopGauge = observeGauge('connectivity.consumer.lag', { description: 'Events on the bus not yet delivered to the consumer.' }, async () => [
    { value: (await subscription.lag?.()) ?? 0, attributes: { durable: EVENTS_DURABLE } },
  ]);
  return {
    ...subscription,
    async stop() {
      stopGauge();
      await subscription.stop();
      // The growth it stored is told now, while the bus is still open.
      flushStreamNotices(options.bus, logger);
    },
  };
}

/** Logs, at most once a minute per account and environment, the deliveries left out by the pending cap. */
function overCapLog(logger: Logger, cap: number) {
  const since = new Map<string, { at: number; deliveries: number; events: number }>();
  return {
    note(event: InternalEvent, deliveries: number) {
      const key = `${event.environment}:${event.account_id}`;
      const now = Date.now();
      const seen = since.get(key) ?? { at: 0, deliveries: 0, events: 0 };
      seen.deliveries += deliveries;
      seen.events += 1;
      if (now - seen.at < OVER_CAP_LOG_EVERY_MS) {
        since.set(key, seen);
        return;
      }
      logger.warn(
        { account_id: event.account_id, environment: event.environment, cap, events: seen.events, deliveries: seen.deliveries, last_event_id: event.id },
        'webhook deliveries not queued: the account has its cap of deliveries pending (the events are stored; a replay sends them)',
      );
      since.set(key, { at: now, deliveries: 0, events: 0 });
    },
  };
}
