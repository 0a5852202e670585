import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { eventSchema } from '../schemas/event.ts';
import { listOf } from '../schemas/list.ts';
import { unixSeconds } from '../schemas/primitives.ts';
import { replaySchema } from '../schemas/replay.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

export const replayEventsBodySchema = titled(
  'ReplayEventsRequest',
  z
    .object({
      since: unixSeconds.describe('Unix seconds: replay the events created at or after it.'),
      event: z.string().min(1).max(200).describe('One event id (`evt_...`) to replay.'),
    })
    .partial()
    .strict(),
);

/** The event log and its replay, owned by the notifications service. */
export const eventRoutes = c.router({
  listEvents: {
    path: '/v1/events',
    summary: 'List events',
    description: 'Lists the events of the account in the key’s environment, newest first.',
    query: paginationQuery,
    ...operation('GET', { 200: listOf('EventList', eventSchema) }, {
      service: 'notifications',
      scopes: ['events:read'],
      errors: ['invalid_parameter'],
    }),
  },
  replayEvents: {
    path: '/v1/events/replay',
    summary: 'Replay events',
    description:
      'Queues past events for delivery again to the webhook endpoints of the key’s environment, with the same event ids ' +
      '(fresh timestamp and signature). `since` replays from that time, `event` one event; with neither, the last 24 hours.',
    body: replayEventsBodySchema.optional(),
    ...operation('POST', { 200: replaySchema }, {
      service: 'notifications',
      scopes: ['events:write'],
      errors: ['resource_not_found'],
    }),
  },
});
