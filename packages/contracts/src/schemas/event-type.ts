import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.ts';
import { openObject, titled } from './titled.ts';

export const eventTypeItemSchema = titled(
  'EventTypeItem',
  z.object({
    object: z.literal('event_type'),
    type: z.enum(EVENT_TYPES),
    description: z.string(),
    data_schema: openObject('JSON Schema (draft 2020-12) of the event `data`.'),
  }),
);
export type EventTypeItem = z.infer<typeof eventTypeItemSchema>;
