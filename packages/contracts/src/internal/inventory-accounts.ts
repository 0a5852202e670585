import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from '../routes/operation.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from '../schemas/primitives.ts';
import { INTERNAL_HEADERS } from './headers.ts';

const c = initContract();

/** What inventory knows of an account for live orders: whether it is verified, and its balance. */
export const accountSettingsSchema = z.object({
  object: z.literal('account_settings'),
  account_id: idSchema(ID_PREFIXES.account),
  verified: z.boolean(),
  live_balance_cents: z.number().int().min(0),
  updated_at: unixSeconds,
});
export type AccountSettings = z.infer<typeof accountSettingsSchema>;

export const updateAccountSettingsBodySchema = z
  .object({
    verified: z.boolean().optional(),
    live_balance_cents: z.number({ invalid_type_error: 'must be an integer' }).int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .strict();

/** The operator's call: no API key is involved, so only the internal token (and a request id) is sent. */
export const operatorHeadersSchema = z.object({
  [INTERNAL_HEADERS.token]: z.string().min(1),
  [INTERNAL_HEADERS.requestId]: idSchema(ID_PREFIXES.request).optional(),
});

export const internalAccountsContract = c.router(
  {
    putAccountSettings: {
      method: 'PUT',
      path: '/internal/accounts/:accountId',
      summary: 'Set an account’s verification and live balance (operator command line); absent fields keep their value',
      pathParams: z.object({ accountId: idSchema(ID_PREFIXES.account) }),
      body: updateAccountSettingsBodySchema,
      responses: {
        200: accountSettingsSchema,
        ...errorResponses(['missing_parameter', 'invalid_parameter', 'internal_error']),
      },
    },
    getAccountSettings: {
      method: 'GET',
      path: '/internal/accounts/:accountId',
      summary: 'An account’s verification and live balance (defaults for an account never set)',
      pathParams: z.object({ accountId: idSchema(ID_PREFIXES.account) }),
      responses: {
        200: accountSettingsSchema,
        ...errorResponses(['invalid_parameter', 'internal_error']),
      },
    },
  },
  { baseHeaders: operatorHeadersSchema, strictStatusCodes: true },
);
