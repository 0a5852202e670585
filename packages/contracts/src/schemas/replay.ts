import { z } from 'zod';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/** What POST /v1/events/replay queued (record 0253). */
export const replaySchema = titled(
  'Replay',
  z.object({
    object: z.literal('replay'),
    queued: z.number().int().min(0).describe('Number of events that will be delivered again (those an endpoint is subscribed to).'),
    endpoints: z.number().int().min(0).describe('Number of webhook endpoints they are queued to.'),
    since: unixSeconds.nullable(),
    event: idSchema(ID_PREFIXES.event).nullable(),
  }),
);
export type ReplayResult = z.infer<typeof replaySchema>;
