import { z } from 'zod';
import { CURRENCIES, REFUND_FAILURE_REASONS, REFUND_REASONS, REFUND_STATUSES } from './enums.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/**
 * Money going back for a cancelled live eSIM (record 0158): `pending` until the supplier has refunded us
 * (eSIM Go at once; Airalo after its manual review), then `succeeded` (the balance is credited with a
 * `refund` transaction) or `failed` (no credit; `failure_reason` says why; the eSIM stays cancelled).
 */
export const refundSchema = titled(
  'Refund',
  z.object({
    object: z.literal('refund'),
    id: idSchema(ID_PREFIXES.refund),
    esim: idSchema(ID_PREFIXES.esim).describe('The cancelled eSIM.'),
    order: idSchema(ID_PREFIXES.order).describe('The order that bought it.'),
    amount_cents: z.number().int().min(0).describe('What the eSIM cost (its order’s unit price): credited when the refund succeeds.'),
    currency: z.enum(CURRENCIES),
    status: z.enum(REFUND_STATUSES),
    reason: z.enum(REFUND_REASONS),
    failure_reason: z
      .enum(REFUND_FAILURE_REASONS)
      .nullable()
      .describe('Why it failed: `supplier_rejected` (the supplier reviewed it and said no) or `supplier_not_refundable`; null unless `failed`.'),
    created_at: unixSeconds,
    updated_at: unixSeconds,
  }),
);
export type Refund = z.infer<typeof refundSchema>;
