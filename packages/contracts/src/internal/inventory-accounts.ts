import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { balanceTransactionSchema } from '../schemas/balance.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from '../schemas/primitives.ts';
import { refundSchema } from '../schemas/refund.ts';
import { INTERNAL_HEADERS } from './headers.ts';

const c = initContract();

/** What inventory knows of an account for live orders: whether it is verified, and its live balance (the ledger's, record 0156). */
export const accountSettingsSchema = z.object({
  object: z.literal('account_settings'),
  account_id: idSchema(ID_PREFIXES.account),
  verified: z.boolean(),
  /** The available live balance: what live orders can hold now. */
  live_balance_cents: z.number().int().min(0),
  /** Held for live purchases in flight. */
  live_pending_cents: z.number().int().min(0),
  /** `balance.low` is sent when the live balance falls below this; null: never. */
  low_balance_threshold_cents: z.number().int().min(0).nullable(),
  updated_at: unixSeconds,
});
export type AccountSettings = z.infer<typeof accountSettingsSchema>;

const centsInput = () => z.number({ invalid_type_error: 'must be an integer' }).int().min(0).max(Number.MAX_SAFE_INTEGER);

export const updateAccountSettingsBodySchema = z
  .object({
    verified: z.boolean().optional(),
    /** Sets the available live balance: the difference is recorded as an `adjustment`. */
    live_balance_cents: centsInput().optional(),
    low_balance_threshold_cents: centsInput().nullable().optional(),
  })
  .strict();

export const creditAccountBodySchema = z
  .object({
    amount_cents: centsInput().min(1),
    description: z.string().min(1).max(500).optional(),
  })
  .strict();

/**
 * The operator records what a vendor decided about a refund it reviews by hand and tells only by
 * notice (Airalo's rejections, record 0158): `failed` with `supplier_rejected`, or `succeeded`.
 */
export const settleRefundBodySchema = z.object({ status: z.enum(['succeeded', 'failed']) }).strict();

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
    creditAccount: {
      method: 'POST',
      path: '/internal/accounts/:accountId/credits',
      summary: 'Add money to an account’s live balance (a `credit` balance transaction)',
      pathParams: z.object({ accountId: idSchema(ID_PREFIXES.account) }),
      body: creditAccountBodySchema,
      responses: {
        200: balanceTransactionSchema,
        ...errorResponses(['missing_parameter', 'invalid_parameter', 'internal_error']),
      },
    },
    settleRefund: {
      method: 'POST',
      path: '/internal/refunds/:refundId/settle',
      summary: 'Record a vendor’s decision on a pending refund (its notice), crediting the balance when it succeeded',
      pathParams: z.object({ refundId: idSchema(ID_PREFIXES.refund) }),
      body: settleRefundBodySchema,
      responses: {
        200: refundSchema,
        ...errorResponses(['missing_parameter', 'invalid_parameter', 'resource_not_found', 'invalid_state_transition', 'internal_error']),
      },
    },
  },
  { baseHeaders: operatorHeadersSchema, strictStatusCodes: true, metadata: admits('gateway-admin') },
);
