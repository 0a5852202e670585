import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.ts';
import { ID_PREFIXES, environmentSchema, idSchema, unixSeconds } from './primitives.ts';
import { openObject, titled } from './titled.ts';

export const eventEnvelopeShape = {
  object: z.literal('event'),
  id: idSchema(ID_PREFIXES.event),
  type: z.enum(EVENT_TYPES),
  time: z.string().datetime({ precision: 3 }).describe('RFC 3339 UTC with milliseconds, e.g. `2026-11-22T10:15:30.123Z`.'),
  created_at: unixSeconds,
  data: openObject('Depends on `type`; see GET /v1/event_types for each data schema.'),
  environment: environmentSchema,
};

/** The event envelope, the same for every type; `typedEventSchema` narrows `data` by `type`. */
export const eventSchema = titled('Event', z.object(eventEnvelopeShape));
// Not `Event`: that name is a global (DOM and Node) and importing it would shadow it.
export type ApiEvent = z.infer<typeof eventSchema>;
