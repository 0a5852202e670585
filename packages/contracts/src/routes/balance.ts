import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { balanceSchema, balanceTransactionSchema, balanceTransactionSourceSchema } from '../schemas/balance.ts';
import { BALANCE_TRANSACTION_TYPES, REFUND_STATUSES } from '../schemas/enums.ts';
import { listOf } from '../schemas/list.ts';
import { refundSchema } from '../schemas/refund.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { bodyInteger, cursorQuery, limitQuery } from './params.ts';

const c = initContract();

export const listBalanceTransactionsQuerySchema = z
  .object({
    cursor: cursorQuery,
    limit: limitQuery,
    type: z.enum(BALANCE_TRANSACTION_TYPES).optional().describe('Only transactions of this type.'),
    source: balanceTransactionSourceSchema.optional().describe('Only the transactions of this order (`ord_...`), refund (`re_...`) or top-up (`top_...`).'),
  })
  .strict();

export const listRefundsQuerySchema = z
  .object({
    cursor: cursorQuery,
    limit: limitQuery,
    esim: z.string().min(1).max(200).optional().describe('Only the refunds of this eSIM (`esim_...`).'),
    status: z.enum(REFUND_STATUSES).optional().describe('Only refunds in this status.'),
  })
  .strict();

export const setTestBalanceBodySchema = titled(
  'SetTestBalanceRequest',
  z
    .object({
      available_cents: bodyInteger()
        .min(0)
        .max(Number.MAX_SAFE_INTEGER)
        .nullable()
        .describe('The simulated balance to spend from, in cents; null switches it off (sandbox orders are then never charged).'),
      low_balance_threshold_cents: bodyInteger()
        .min(0)
        .max(Number.MAX_SAFE_INTEGER)
        .nullable()
        .optional()
        .describe('`balance.low` is sent when the simulated balance falls below this; null removes it; absent keeps it.'),
    })
    .strict(),
);

const refundPathParams = z.object({ id: z.string().min(1).max(200).describe('The refund id (`re_...`).') });

export const settleTestRefundBodySchema = titled(
  'SettleTestRefundRequest',
  z.object({ status: z.enum(['succeeded', 'failed']).describe('What the simulated supplier decides.') }).strict(),
);

// The ledger belongs with the orders it pays for (inventory), so a hold is taken in the transaction that records the purchase intent.
const owner = { service: 'inventory', scopes: ['balance:read'] } as const;

/** The balance, its transactions and refunds (records 0156-0158), owned by the inventory service. */
export const balanceRoutes = c.router({
  getBalance: {
    path: '/v1/balance',
    summary: 'Get the balance',
    description:
      'The balance of the key’s environment: live, the prepaid balance live orders are paid from; test, the simulated ' +
      'balance set with POST /v1/test/balance (null `available_cents` when none is set).',
    ...operation('GET', { 200: balanceSchema }, owner),
  },
  listBalanceTransactions: {
    path: '/v1/balance_transactions',
    summary: 'List balance transactions',
    description:
      'Every movement of the balance of the key’s environment, newest first: orders and their releases, refunds, credits and ' +
      'adjustments. Filter by `type` or by `source` (an order or refund id).',
    query: listBalanceTransactionsQuerySchema,
    ...operation('GET', { 200: listOf('BalanceTransactionList', balanceTransactionSchema) }, { ...owner, errors: ['invalid_parameter'] }),
  },
  listRefunds: {
    path: '/v1/refunds',
    summary: 'List refunds',
    description:
      'Refunds of cancelled unused eSIMs, newest first. A refund is `pending` until the supplier has refunded us, then ' +
      '`succeeded` (the balance is credited) or `failed` (`failure_reason` says why). Sandbox refunds are decided by the ' +
      'simulated supplier (POST /v1/test/refunds/{id}/settle decides one at once).',
    query: listRefundsQuerySchema,
    ...operation('GET', { 200: listOf('RefundList', refundSchema) }, { ...owner, errors: ['invalid_parameter'] }),
  },
  getRefund: {
    path: '/v1/refunds/:id',
    summary: 'Get a refund',
    description: 'Reads one refund.',
    pathParams: refundPathParams,
    ...operation('GET', { 200: refundSchema }, { ...owner, errors: ['test_key_live_resource', 'live_key_test_resource', 'resource_not_found'] }),
  },
  settleTestRefund: {
    path: '/v1/test/refunds/:id/settle',
    summary: 'Settle a sandbox refund',
    description:
      'Decides a pending sandbox refund now, as the simulated supplier’s review would: `succeeded` (credited to the ' +
      'simulated balance if one is set; `refund.succeeded`) or `failed` (`supplier_rejected`; `refund.failed`). A sandbox ' +
      'refund nobody settles succeeds by itself after the review time. Test keys only.',
    pathParams: refundPathParams,
    body: settleTestRefundBodySchema,
    ...operation(
      'POST',
      { 200: refundSchema },
      {
        service: 'inventory',
        scopes: ['test_helpers'],
        testOnly: true,
        errors: ['missing_parameter', 'invalid_parameter', 'live_key_test_resource', 'resource_not_found', 'invalid_state_transition'],
      },
    ),
  },
  setTestBalance: {
    path: '/v1/test/balance',
    summary: 'Set the simulated balance',
    description:
      'Sets the simulated balance sandbox orders are paid from (recorded as an `adjustment`), so that `balance_insufficient` ' +
      'and `balance.low` can be tried without live money; `available_cents: null` switches it off. Test keys only.',
    body: setTestBalanceBodySchema,
    ...operation(
      'POST',
      { 200: balanceSchema },
      { service: 'inventory', scopes: ['test_helpers'], testOnly: true, errors: ['missing_parameter', 'invalid_parameter', 'live_key_test_resource'] },
    ),
  },
});
