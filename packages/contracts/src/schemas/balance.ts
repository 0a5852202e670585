import { z } from 'zod';
import { BALANCE_TRANSACTION_TYPES, CURRENCIES, ENVIRONMENTS } from './enums.ts';
import { ID_PREFIXES, idPattern, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

const cents = z.number().int();

/** GET /v1/balance: what the key's environment can spend (records 0156 and 0157). */
export const balanceSchema = titled(
  'Balance',
  z.object({
    object: z.literal('balance'),
    environment: z.enum(ENVIRONMENTS),
    available_cents: cents
      .min(0)
      .nullable()
      .describe(
        'What can be spent now, in cents. Live: the prepaid balance, never negative; an order holds its price here before ' +
          'the supplier is asked. Test: the simulated balance set with POST /v1/test/balance, or null when none is set ' +
          '(sandbox orders are then never charged).',
      ),
    pending_cents: cents
      .min(0)
      .describe('Held for purchases still in flight (already taken from `available_cents`): kept when the order is recorded, given back when it fails.'),
    currency: z.enum(CURRENCIES),
    low_balance_threshold_cents: cents
      .min(0)
      .nullable()
      .describe('`balance.low` is sent when `available_cents` falls below this; null when no threshold is set.'),
    simulated: z.boolean().describe('True for the sandbox’s simulated balance (test keys), false for the live one.'),
  }),
);
export type Balance = z.infer<typeof balanceSchema>;

/** One movement of a balance, append-only: the transactions of an environment add up to its `available_cents`. */
export const balanceTransactionSchema = titled(
  'BalanceTransaction',
  z.object({
    object: z.literal('balance_transaction'),
    id: idSchema(ID_PREFIXES.balanceTransaction),
    type: z
      .enum(BALANCE_TRANSACTION_TYPES)
      .describe(
        '`order`: an order’s price, held before the supplier is asked (kept when the order is recorded); `order_release`: ' +
          'that hold given back (the purchase failed); `refund`: a cancelled eSIM’s price, once the supplier refunded it; ' +
          '`credit`: money added; `adjustment`: the balance set by the operator (or POST /v1/test/balance); `topup`, `topup_release`: ' +
          'a top-up’s price and its hold given back, as an order’s.',
      ),
    amount_cents: cents.describe('Signed: negative takes from the balance, positive adds to it.'),
    balance_after_cents: cents.min(0).describe('`available_cents` right after this transaction.'),
    currency: z.enum(CURRENCIES),
    source: z
      .string()
      .nullable()
      .describe(
        'What caused it: an order id (`ord_...`) for `order` and `order_release`, a refund id (`re_...`) for `refund`, a top-up id (`top_...`) ' +
          'for `topup` and `topup_release`; null otherwise.',
      ),
    description: z.string().nullable(),
    created_at: unixSeconds,
  }),
);
export type BalanceTransaction = z.infer<typeof balanceTransactionSchema>;

/** A `source` filter: an order, a refund or a top-up id. */
export const balanceTransactionSourceSchema = z
  .string()
  .regex(new RegExp(`${idPattern(ID_PREFIXES.order).source}|${idPattern(ID_PREFIXES.refund).source}|${idPattern(ID_PREFIXES.topup).source}`), {
    message: 'must be an order id (`ord_...`), a refund id (`re_...`) or a top-up id (`top_...`)',
  });
