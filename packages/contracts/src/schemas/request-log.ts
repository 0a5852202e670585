import { z } from 'zod';
import { ID_PREFIXES, environmentSchema, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/**
 * One request the gateway answered for the account: what was asked and how it ended, never
 * what was sent (no body, no query string, no header, so no secret).
 */
export const requestLogSchema = titled(
  'RequestLog',
  z.object({
    object: z.literal('request_log'),
    id: idSchema(ID_PREFIXES.request).describe('The request’s `Request-Id`.'),
    method: z.string(),
    path: z.string().describe('The path as requested, without its query string.'),
    route: z.string().nullable().describe('The operation’s path template, e.g. `/v1/esim/{id}`; null when the request matched no route.'),
    status: z.number().int().min(100).max(599),
    duration_ms: z.number().int().min(0).describe('From authentication to the last byte of the answer, in milliseconds.'),
    api_key: idSchema(ID_PREFIXES.apiKey).describe('The key the request was made with.'),
    environment: environmentSchema,
    created_at: unixSeconds,
  }),
);
export type RequestLog = z.infer<typeof requestLogSchema>;
