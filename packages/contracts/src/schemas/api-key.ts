import { z } from 'zod';
import { API_KEY_STATUSES, SCOPES } from './enums.ts';
import { ID_PREFIXES, environmentSchema, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/** An API key record; the secret is never part of it (record 0251). */
export const apiKeySchema = titled(
  'ApiKey',
  z.object({
    object: z.literal('api_key'),
    id: idSchema(ID_PREFIXES.apiKey),
    environment: environmentSchema,
    prefix: z
      .string()
      .regex(/^sk_(test|live)_.{4}$/)
      .describe('The first 12 characters of the secret, e.g. `sk_test_Ab3x`.'),
    last4: z.string().length(4),
    status: z.enum(API_KEY_STATUSES),
    scopes: z.array(z.enum(SCOPES)),
    created_at: unixSeconds,
    last_used_at: unixSeconds.nullable(),
    revoked_at: unixSeconds.nullable(),
  }),
);
export type ApiKey = z.infer<typeof apiKeySchema>;
