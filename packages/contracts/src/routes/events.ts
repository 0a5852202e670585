import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { eventSchema } from '../schemas/event.ts';
import { listOf } from '../schemas/list.ts';
import { unixSeconds } from '../schemas/primitives.ts';
import { replaySchema } from '../schemas/replay.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { paginationQuery, readHeaders } from './params.ts';

const c = initContract();

export const replayEventsBodySchema = titled(
  'ReplayEventsRequest',
  z
    .object({
      since: unixSeconds.describe('Unix seconds: replay the events created at or after it; at most 30 days ago.'),
      event: z.string().min(1).max(200).describe('One event id (`evt_...`) to replay.'),
    })
    .partial()
    .strict(),
);

/** What GET /v1/events/stream answers: Server-Sent Events. */
export const EVENT_STREAM_MEDIA_TYPE = 'text/event-stream';

/** An event id as a stream position (`Last-Event-ID` or `last_event_id`). */
const streamPosition = z.string().min(1).max(200);

/**
 * `types=esim.*,api_key.revoked`: exact types or a prefix ending in `.*`, comma-separated; the
 * pattern keeps it to what an event type can be, so nothing else reaches the service.
 */
export const STREAM_TYPES_PATTERN = /^(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?)(,(\*|[a-z_]+(\.[a-z_]+)*(\.\*)?))*$/;

export const streamEventsQuerySchema = z
  .object({
    types: z
      .string()
      .max(1000)
      .regex(STREAM_TYPES_PATTERN, { message: 'must be comma-separated event types or prefixes ending in .*, e.g. esim.*,api_key.revoked' })
      .optional()
      .describe('Only events of these types: comma-separated types or prefixes ending in `.*` (e.g. `esim.*,api_key.revoked`).'),
    last_event_id: streamPosition.optional().describe('Resume after this event, as the `Last-Event-ID` header does (the header wins when both are sent).'),
  })
  .strict();

export const streamEventsHeadersSchema = readHeaders.extend({
  'last-event-id': streamPosition.optional().describe('The `id` of the last event received: the stream resumes after it, nothing lost.'),
});

/** The event log and its replay, owned by the notifications service. */
export const eventRoutes = c.router({
  listEvents: {
    path: '/v1/events',
    summary: 'List events',
    description: 'Lists the events of the account in the key’s environment, newest first.',
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('EventList', eventSchema) },
      {
        service: 'notifications',
        scopes: ['events:read'],
        errors: ['invalid_parameter'],
      },
    ),
  },
  streamEvents: {
    path: '/v1/events/stream',
    summary: 'Stream events',
    description:
      'Server-Sent Events of the account’s test events as they are stored: each as `id:` the event id, `event:` its type, ' +
      '`data:` the event object (as `GET /v1/events` lists it), and replays (`POST /v1/events/replay`) as they ' +
      'are queued. A `: keepalive` comment comes every 15 seconds. Reconnect with `Last-Event-ID` (or `last_event_id`) ' +
      'to resume after that event with nothing lost: events stored in between come first, in order. Without it the ' +
      'stream starts with the next event. At least once: after a resume from a replayed event, events may come twice.',
    query: streamEventsQuerySchema,
    ...operation(
      'GET',
      { 200: c.otherResponse({ contentType: EVENT_STREAM_MEDIA_TYPE, body: c.type<string>() }) },
      {
        service: 'notifications',
        scopes: ['events:read'],
        errors: ['invalid_parameter', 'live_key_test_resource'],
        testOnly: true,
        produces: [EVENT_STREAM_MEDIA_TYPE],
        stream: true,
      },
    ),
    headers: streamEventsHeadersSchema,
  },
  replayEvents: {
    path: '/v1/events/replay',
    summary: 'Replay events',
    description:
      'Queues past events for delivery again to the webhook endpoints of the key’s environment, with the same event ids ' +
      '(fresh timestamp and signature). `since` replays from that time, `event` one event; with neither, the last 24 hours. ' +
      'A replay reaches back at most 30 days and queues at most 10,000 events: a wider window is refused ' +
      '(`invalid_parameter`, `param: "since"`) with the `since` from which the newest events fit. A window is queued in ' +
      'batches after the answer; while one runs, another replay of the account in this environment is refused ' +
      '(409 `already_exists`, with `Retry-After`). One event is queued at once.',
    body: replayEventsBodySchema.optional(),
    ...operation(
      'POST',
      { 200: replaySchema },
      {
        service: 'notifications',
        scopes: ['events:write'],
        errors: ['resource_not_found'],
      },
    ),
  },
});
