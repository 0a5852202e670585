import { z } from 'zod';
import type { RateRule } from '../rate-limiter.ts';

/**
 * The parts of the Airalo Partner API v2 the adapter reads (packages/fake-suppliers/vendor/airalo
 * keeps the vendor's documents; their defects are listed in its SOURCE.md). Objects are read
 * loosely: Airalo adds fields, and only the ones below matter to us.
 */

export const tokenAnswerSchema = z.object({
  data: z.object({ access_token: z.string().min(1), expires_in: z.coerce.number().int().positive() }),
});

const packageSchema = z.object({
  id: z.string(),
  type: z.string(),
  title: z.string().optional(),
  /** MB (1 GB = 1024 MB); 0 for unlimited. */
  amount: z.coerce.number(),
  day: z.coerce.number().int(),
  is_unlimited: z.boolean(),
  /** The list price, USD (AIR-10: decimals though typed integer). */
  price: z.coerce.number(),
  /** What we pay, in USD (prices.net_price has it in other currencies too); null or absent under discount pricing. */
  net_price: z.number().nullable().optional(),
});

/** `net_pricing`, or `discount_pricing` (then `net_price` is null or absent: the cost is `price` less `discount_percentage`). */
const pricingSchema = z.object({ model: z.string(), discount_percentage: z.coerce.number().nullable().optional() }).optional();

/**
 * What a package costs us, in USD: its `net_price` under net pricing; under discount pricing (the
 * vendor's "Discount pricing" list variant, no `net_price`) its `price` less the account's discount. Never
 * 0 for want of a field: a package with neither is costed at its list price.
 */
export function airaloCost(pkg: { price: number; net_price?: number | null | undefined }, pricing: z.infer<typeof pricingSchema>): number {
  if (pkg.net_price !== null && pkg.net_price !== undefined) return pkg.net_price;
  const discount = pricing?.model === 'discount_pricing' ? (pricing.discount_percentage ?? 0) : 0;
  return (pkg.price * (100 - discount)) / 100;
}

export const packagesAnswerSchema = z.object({
  pricing: pricingSchema,
  data: z.array(
    z.object({
      slug: z.string(),
      country_code: z.string().nullable().optional(),
      title: z.string(),
      operators: z.array(
        z.object({
          title: z.string().optional(),
          countries: z.array(z.object({ country_code: z.string() })).default([]),
          /** "first-usage": the package's validity starts at its first use (record 0230). */
          activation_policy: z.string().nullable().optional(),
          /** Days from purchase until the eSIM can no longer be installed (it is recycled). */
          install_window_days: z.coerce.number().int().positive().nullable().optional(),
          packages: z.array(packageSchema),
        }),
      ),
    }),
  ),
  meta: z.object({ current_page: z.coerce.number().optional(), last_page: z.coerce.number().optional() }).optional(),
});

const simSchema = z.object({ iccid: z.string(), lpa: z.string().min(1), matching_id: z.string().min(1) });

/** The order answer: its eSIMs and what Airalo charged us per eSIM (`net_price`, USD; AIR-7: in examples only). */
export const orderAnswerSchema = z.object({
  data: z.object({ id: z.coerce.number(), sims: z.array(simSchema), net_price: z.coerce.number().optional() }),
});

/** `GET /sims/{iccid}/topups`: the packages that can top the eSIM up (AIR-21: prices may be decimals). */
export const topupsAnswerSchema = z.object({
  pricing: pricingSchema,
  data: z.array(packageSchema),
});

/** `POST /orders/topups`: the order, and what Airalo charged us for the package (`net_price`, USD). */
export const topupOrderAnswerSchema = z.object({ data: z.object({ id: z.coerce.number(), net_price: z.coerce.number().nullable().optional() }) });

/** `POST /orders-async`: taken, with the request id its webhook will carry. */
export const asyncOrderAnswerSchema = z.object({ data: z.object({ request_id: z.string().min(1) }) });

const listedOrderSchema = z.object({
  id: z.coerce.number(),
  /** `sim`, or `topup` for a package bought onto an eSIM (record 0248). */
  type: z.string().optional(),
  code: z.string().optional(),
  description: z.string().nullable().optional(),
  package_id: z.string().optional(),
  quantity: z.coerce.number().optional(),
  created_at: z.string().optional(),
  sims: z.array(simSchema).optional(),
  /** With `include=status`: `completed`, `failed`, `refunded`, `partially_refunded` (AIR-9). */
  status: z.object({ slug: z.string() }).nullable().optional(),
});

export const ordersListSchema = z.object({
  data: z.array(listedOrderSchema),
  meta: z.object({ current_page: z.coerce.number().optional(), last_page: z.coerce.number().optional() }).optional(),
});

/** `POST /refund`: the request Airalo's support will review. */
export const refundAnswerSchema = z.object({ data: z.object({ refund_id: z.coerce.string() }) });

/** Usage statuses (AIR-11): NOT_ACTIVE, ACTIVE, FINISHED, UNKNOWN, EXPIRED, RECYCLED. */
export const usageAnswerSchema = z.object({
  data: z.object({
    /** MB left and MB in all; 0 and 0 for unlimited packages. */
    remaining: z.coerce.number().nullable().optional(),
    total: z.coerce.number().nullable().optional(),
    expired_at: z.string().nullable().optional(),
    is_unlimited: z.boolean().optional(),
    status: z.string(),
  }),
});
export type AiraloUsage = z.infer<typeof usageAnswerSchema>['data'];

/** The low-data webhook (levels "75%", "90%", "3days", "1days"). */
export const lowDataWebhookSchema = z.object({
  iccid: z.string(),
  level: z.string(),
  package_name: z.string().optional(),
  remaining_percentage: z.coerce.number().optional(),
});

/** The credit-limit webhook (webhook definition page): what was passed, and the credit remaining (USD). */
export const creditLimitWebhookSchema = z.object({
  message: z.string(),
  remaining: z.coerce.number(),
});

/** Airalo's validation answer (422): the failing fields in `data`. */
export const validationErrorSchema = z.object({ data: z.record(z.string(), z.unknown()) });

/**
 * Airalo's documented limits (AIR-16, the newest vendor text), kept per process on our side
 * (docs/decisions/0135-client-side-rate-limits.md).
 */
export const AIRALO_LIMITS = {
  token: { limit: 3, windowMs: 60_000 },
  packages: { limit: 80, windowMs: 60_000 },
  usagePerIccid: { limit: 10, windowMs: 60_000 },
  usagePerClient: { limit: 5, windowMs: 1_000 },
  refund: { limit: 5, windowMs: 60_000 },
} satisfies Record<string, RateRule>;

/** The MB of Airalo's amounts and usage. */
/** Airalo's megabyte (record 0231): its documents count 1 GB as 1024 MB, and 1 MB as 1024 x 1024 bytes. */
export const AIRALO_MB = 1024 * 1024;

/** "2025-04-15 14:02:38" (UTC) as unix seconds; undefined when it is not such a time. */
export function airaloTime(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const ms = Date.parse(`${value.trim().replace(' ', 'T')}Z`);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
}
