import { eventSchema } from '@connectivity/contracts';
import { context, propagation } from '@opentelemetry/api';
import { observeGauge, type Bus, type Database, type InternalEvent, type Logger, type Subscription } from '@connectivity/platform';
import { z } from 'zod';
import { storeAndQueue } from '../db/events-repository.ts';
import { STREAMED_ENVIRONMENT } from '../db/stream-repository.ts';
import { announceStreamGrowth } from '../stream/stream-notices.ts';

/** The durable consumer's name: every notifications instance shares it, so each event is handled once. */
export const EVENTS_DURABLE = 'notifications';

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
}

/**
 * Stores every event from the bus once (idempotent on the event id) and queues its deliveries
 * in the same transaction; the message is acked only after that commit (the handler resolves).
 * A failure is redelivered by the bus, and after `maxDeliver` failures dead-lettered, so a bad
 * message never blocks the ones behind it.
 */
export async function startEventConsumer(options: EventConsumerOptions): Promise<Subscription> {
  const { db, logger } = options;
  const subscription = await options.bus.subscribe(
    { durable: EVENTS_DURABLE, filterSubjects: ['events.>'], maxDeliver: options.maxDeliver, backoffMs: options.backoffMs },
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
      const queued = await storeAndQueue(db.knex, event, traceContext, new Date());
      if (queued === undefined) {
        logger.debug({ event_id: event.id }, 'event already stored');
        return;
      }
      // The deliveries queued with it wake the delivery worker (see `storeAndQueue`); the
      // streams of the account, on whichever instance, are told it is there.
      if (event.environment === STREAMED_ENVIRONMENT) announceStreamGrowth(options.bus, logger, { accountId: event.account_id, environment: event.environment });
      logger.debug({ event_id: event.id, type: event.type, deliveries: queued }, 'event stored');
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
    },
  };
}
