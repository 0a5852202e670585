import { z } from 'zod';
import type { RateRule } from '../rate-limiter.ts';

/**
 * The parts of the eSIM Go API v2.4 the adapter reads (packages/fake-suppliers/vendor/esim-go
 * keeps the vendor's document; its defects are listed in its SOURCE.md). Read loosely: only the
 * fields below matter to us.
 */

export const catalogueAnswerSchema = z.array(
  z.object({
    name: z.string(),
    description: z.string().optional(),
    countries: z.array(z.object({ iso: z.string() })).default([]),
    /** MB (1 GB = 1000 MB); the daily allowance of unlimited bundles. */
    dataAmount: z.coerce.number(),
    duration: z.coerce.number().int(),
    unlimited: z.boolean().optional(),
    /** In the organisation's currency (EG-4: a decimal). */
    price: z.coerce.number(),
  }),
);

export const organisationAnswerSchema = z.object({ currency: z.string().min(3) });

const orderedEsimSchema = z.object({ iccid: z.string(), matchingId: z.string().min(1), smdpAddress: z.string().min(1) });

export const orderAnswerSchema = z.object({
  orderReference: z.string().optional(),
  currency: z.string().optional(),
  order: z.array(z.object({ esims: z.array(orderedEsimSchema).default([]), pricePerUnit: z.coerce.number().optional() })),
});

/** A `type: validate` order: what it would cost, without buying (EG-4: decimals). */
export const validateAnswerSchema = z.object({
  currency: z.string().optional(),
  order: z.array(z.object({ pricePerUnit: z.coerce.number().optional(), subTotal: z.coerce.number().optional(), quantity: z.coerce.number().optional() })),
});

/** A revoke's answer says whether the bundle's price came back (`…refunded to balance`). */
export const revokeAnswerSchema = z.object({ status: z.string() });

/** `GET /orders?includeIccids=true`: a list (EG-5), one object per order, its lines with their ICCIDs. */
export const ordersListSchema = z
  .union([z.array(z.unknown()), z.record(z.unknown())])
  .transform((body) => (Array.isArray(body) ? body : [body]))
  .pipe(
    z.array(
      z.object({
        orderReference: z.string().optional(),
        createdDate: z.string(),
        order: z.array(z.object({ item: z.string(), quantity: z.number(), iccids: z.array(z.string()).default([]) })).default([]),
      }),
    ),
  );

export const esimsListSchema = z.object({ esims: z.array(z.object({ iccid: z.string(), customerRef: z.string().optional() })) });

export const esimDetailsSchema = z.object({
  iccid: z.string(),
  matchingId: z.string().min(1),
  smdpAddress: z.string().min(1),
  profileStatus: z.string().optional(),
  customerRef: z.string().optional(),
});
export type EsimGoDetails = z.infer<typeof esimDetailsSchema>;

export const bundlesAnswerSchema = z.object({
  bundles: z.array(
    z.object({
      name: z.string(),
      assignments: z.array(
        z.object({
          id: z.string(),
          initialQuantity: z.coerce.number().optional(),
          remainingQuantity: z.coerce.number().optional(),
          assignmentDateTime: z.string().optional(),
          bundleState: z.string(),
          unlimited: z.boolean().optional(),
        }),
      ),
    }),
  ),
});
export type EsimGoBundles = z.infer<typeof bundlesAnswerSchema>['bundles'];

/** A V3 callback (webhooks guide): FirstAttachment, FirstUse, Utilisation, and others we ignore. */
export const callbackSchema = z.object({
  alertType: z.string(),
  iccid: z.string(),
  bundle: z
    .object({
      name: z.string().optional(),
      initialQuantity: z.coerce.number().optional(),
      remainingQuantity: z.coerce.number().optional(),
      startTime: z.string().optional(),
      endTime: z.string().optional(),
      unlimited: z.boolean().optional(),
    })
    .optional(),
});

/**
 * The balance notification (notifications page, "Balance Notification"): `LowBalance` at the
 * organisation's alert threshold and at 75, 50 and 10 % of it, `InsufficientBalance` when a purchase was
 * refused for want of credit; `balanceInfo.balance` is the balance left ($).
 */
export const balanceCallbackSchema = z.object({
  alertType: z.enum(['LowBalance', 'InsufficientBalance']),
  balanceInfo: z
    .object({
      balance: z.coerce.number().optional(),
      threshold: z.coerce.number().optional(),
      thresholdPercentRemaining: z.coerce.number().optional(),
    })
    .optional(),
});

/** eSIM Go's one error body. */
export const errorBodySchema = z.object({ message: z.string() });

/** EG-17: 10 requests per second per IP (the rate-limit guide), kept per process on our side. */
export const ESIM_GO_LIMIT: RateRule = { limit: 10, windowMs: 1_000 };

/** Bundle states of an unused assignment, and of one in use (bundle-status guide, EG-18). */
export const UNUSED_STATES = ['processing', 'queued'];
export const IN_USE_STATES = ['processing', 'queued', 'active'];
