import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from '../schemas/primitives.ts';
import { operatorHeadersSchema } from './inventory-accounts.ts';

const c = initContract();

/**
 * Whether an account may use the live supplier (its live catalogue and live orders). Owned by
 * catalogue, which fronts the supplier and answers both; on unless the operator switched it off.
 */
export const liveOrderingSchema = z.object({
  object: z.literal('live_ordering'),
  account_id: idSchema(ID_PREFIXES.account),
  enabled: z.boolean(),
  updated_at: unixSeconds.nullable().describe('Null while the operator never set it (the default: on).'),
});
export type LiveOrdering = z.infer<typeof liveOrderingSchema>;

export const putLiveOrderingBodySchema = z.object({ enabled: z.boolean() }).strict();

const accountPath = z.object({ accountId: idSchema(ID_PREFIXES.account) });

export const internalCatalogueAccountsContract = c.router(
  {
    putLiveOrdering: {
      method: 'PUT',
      path: '/internal/accounts/:accountId/live-ordering',
      summary: 'Switch an account’s live ordering on or off (operator command line)',
      pathParams: accountPath,
      body: putLiveOrderingBodySchema,
      responses: {
        200: liveOrderingSchema,
        ...errorResponses(['missing_parameter', 'invalid_parameter', 'internal_error']),
      },
    },
    getLiveOrdering: {
      method: 'GET',
      path: '/internal/accounts/:accountId/live-ordering',
      summary: 'Whether an account’s live ordering is on',
      pathParams: accountPath,
      responses: {
        200: liveOrderingSchema,
        ...errorResponses(['invalid_parameter', 'internal_error']),
      },
    },
  },
  { baseHeaders: operatorHeadersSchema, strictStatusCodes: true, metadata: admits('gateway-admin') },
);
