import { z } from 'zod';
import { ID_PREFIXES, environmentSchema, idSchema } from '../schemas/primitives.ts';

/** Headers the gateway (or a service) sets on a service-to-service call; services trust nothing else. */
export const INTERNAL_HEADERS = {
  accountId: 'x-account-id',
  environment: 'x-environment',
  keyId: 'x-key-id',
  requestId: 'x-request-id',
  token: 'x-internal-token',
} as const;
export type InternalHeaderName = (typeof INTERNAL_HEADERS)[keyof typeof INTERNAL_HEADERS];

/**
 * The account of work that belongs to no tenant: the release of a vendor order that carries no order
 * of ours (record 0161). Well formed, so it passes as `x-account-id`; no API key ever names it.
 */
export const NO_ACCOUNT_ID = 'acct_00000000000000000000000000';

/** The identity of an internal call. `x-key-id` is absent when the service itself acts (sweeper, consumer). */
export const internalHeadersSchema = z.object({
  [INTERNAL_HEADERS.accountId]: idSchema(ID_PREFIXES.account),
  [INTERNAL_HEADERS.environment]: environmentSchema,
  [INTERNAL_HEADERS.keyId]: idSchema(ID_PREFIXES.apiKey).optional(),
  [INTERNAL_HEADERS.requestId]: idSchema(ID_PREFIXES.request),
  [INTERNAL_HEADERS.token]: z.string().min(1),
});
export type InternalHeaders = z.infer<typeof internalHeadersSchema>;

/** The headers of an internal call made for no account (a supplier's callback): the request and the token only. */
export const internalSystemHeadersSchema = z.object({
  [INTERNAL_HEADERS.requestId]: idSchema(ID_PREFIXES.request),
  [INTERNAL_HEADERS.token]: z.string().min(1),
});
