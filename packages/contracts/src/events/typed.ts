import { z } from 'zod';
import { eventEnvelopeShape } from '../schemas/event.ts';
import { EVENT_CATALOGUE } from './catalogue.ts';
import type { EventType } from './types.ts';

function typedEnvelope<T extends EventType>(type: T) {
  return z.object({ ...eventEnvelopeShape, type: z.literal(type), data: EVENT_CATALOGUE[type].data });
}

/** The event envelope with `data` narrowed by `type`: what a webhook receiver parses. */
export const typedEventSchema = z.discriminatedUnion('type', [
  typedEnvelope('esim.released'),
  typedEnvelope('esim.installed'),
  typedEnvelope('esim.activated'),
  typedEnvelope('esim.suspended'),
  typedEnvelope('esim.expired'),
  typedEnvelope('esim.usage.threshold'),
  typedEnvelope('api_key.issued'),
  typedEnvelope('api_key.first_used'),
  typedEnvelope('api_key.revoked'),
  typedEnvelope('refund.created'),
  typedEnvelope('refund.succeeded'),
  typedEnvelope('refund.failed'),
  typedEnvelope('balance.low'),
  typedEnvelope('esim.topped_up'),
  typedEnvelope('esim.expiring'),
]);
export type TypedEvent = z.infer<typeof typedEventSchema>;
export type TypedEventOf<T extends EventType> = Extract<TypedEvent, { type: T }>;
