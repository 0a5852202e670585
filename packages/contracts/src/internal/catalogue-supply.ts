import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { ESIM_STATES, EXPIRED_REASONS, EXPIRING_MARKS } from '../schemas/enums.ts';
import { bundleNameSchema, iccidSchema, unixSeconds } from '../schemas/primitives.ts';
import { internalHeadersSchema, internalSystemHeadersSchema } from './headers.ts';

const c = initContract();

/** A profile the supplier made for a live order: what inventory stores on the eSIM. */
export const suppliedProfileSchema = z.object({
  iccid: iccidSchema,
  smdp_address: z.string().min(1),
  matching_id: z.string().min(1),
});
export type SuppliedProfile = z.infer<typeof suppliedProfileSchema>;

/** The suppliers a live environment can buy from (setting `LIVE_SUPPLIER`). */
export const SUPPLIER_VENDORS = ['airalo', 'esim-go'] as const;
export type SupplierVendor = (typeof SUPPLIER_VENDORS)[number];

/**
 * What the supplier says of one live profile, in our terms (the vendor-to-state table is in the
 * decision records): the state it has reached, why it expired, and its usage. Inventory applies
 * a report by moving the eSIM forward only (a report never moves an eSIM back), so the same
 * report from a callback and from reconciliation emits each event once.
 */
export const profileReportSchema = z.object({
  iccid: iccidSchema,
  state: z.enum(ESIM_STATES),
  /** Set when `state` is `expired`; null otherwise. */
  expired_reason: z.enum(EXPIRED_REASONS).nullable(),
  /** Bytes used so far; null when the supplier did not say. */
  data_used_bytes: z.number().int().min(0).nullable(),
  /** The bundle's data allowance in bytes; null when unlimited or not said. */
  data_limit_bytes: z.number().int().min(0).nullable(),
  /** When the bundle's validity ends at the supplier (unix seconds); null when not said. */
  expires_at: unixSeconds.nullable(),
  /** When the bundle's validity started at the supplier (first use), where it says (unix seconds); null or absent when not said. */
  started_at: unixSeconds.nullable().optional(),
  /**
   * Ask the supplier about this profile again no sooner than this many seconds (record 0234): its
   * answer is cached that long (Airalo's usage), or its rate per profile allows no more; absent: no such limit.
   */
  recheck_after_seconds: z.number().int().min(0).optional(),
  /** When the supplier observed this (unix seconds): reports older than what inventory holds change nothing. */
  observed_at: unixSeconds,
  /** The supplier sends its own notices before the validity ends (Airalo): `esim.expiring` comes from them, not our clock (record 0236). */
  vendor_notices_expiry: z.boolean().optional(),
  /** The report is the supplier's notice that the validity ends in this many days (Airalo's `3days`/`1days`, record 0236). */
  expiring_days_left: z.union([z.literal(EXPIRING_MARKS[0]), z.literal(EXPIRING_MARKS[1])]).optional(),
});
export type ProfileReport = z.infer<typeof profileReportSchema>;

export const orderProfilesBodySchema = z
  .object({
    /** The order id: the vendor's order carries it, so that `findOrder` can tell whether it was placed. */
    reference: z.string().min(1).max(100),
    bundle: bundleNameSchema,
    quantity: z.number().int().min(1).max(10),
    /** The unit price the order is charged (live): a vendor price above what it covers is refused before buying where the vendor quotes (record 0160). */
    price_cents: z.number().int().min(0).optional(),
  })
  .strict();

/**
 * What became of a purchase (record 0159): `bought` (the vendor answered with the profiles;
 * `retail_price_cents` is what the vendor's own price for them sells at under our rule, so the caller
 * can tell a price that rose), or `in_doubt` (the vendor may have made the order or may still make it:
 * a timeout after the request was sent, a 5xx, eSIM Go's "processing", an Airalo async order not made
 * yet). Nothing is bought twice in doubt: ask `findOrder`, after `retry_after_seconds`.
 */
/** A purchase call whose answer is not known yet (record 0159): the same for an order and a top-up. */
export const inDoubtOutcomeSchema = z.object({
  outcome: z.literal('in_doubt'),
  retry_after_seconds: z.number().int().min(1),
  /** How long the vendor may still take to make the purchase (its documented worst case): no second purchase before. */
  settles_within_seconds: z.number().int().min(1),
  vendor_request_id: z.string().nullable(),
});

export const purchaseOutcomeSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('bought'), profiles: z.array(suppliedProfileSchema), retail_price_cents: z.number().int().min(0).nullable() }),
  inDoubtOutcomeSchema,
]);
export type PurchaseOutcome = z.infer<typeof purchaseOutcomeSchema>;

/**
 * What a terminate did about money (record 0158): `refunded` (the vendor gave our cost back at once),
 * `requested` (a refund was asked for and the vendor will decide; `vendor_refund_id` names it),
 * `not_refundable` (the profile was unused but the vendor does not refund it), `none` (in use or already
 * ended: nothing to refund).
 */
export const TERMINATION_REFUNDS = ['refunded', 'requested', 'not_refundable', 'none'] as const;
export type TerminationRefund = (typeof TERMINATION_REFUNDS)[number];

export const terminationSchema = z.object({
  iccid: iccidSchema,
  status: z.literal('terminated'),
  refund: z.enum(TERMINATION_REFUNDS),
  vendor_refund_id: z.string().nullable(),
});
export type Termination = z.infer<typeof terminationSchema>;

/** Where a refund the vendor reviews stands: still `pending`, or `succeeded` (it refunded us). */
export const vendorRefundStatusSchema = z.object({ iccid: iccidSchema, status: z.enum(['pending', 'succeeded']) });

/** One of the vendor's orders, for the audit of vendor orders against ours (record 0161). */
export const vendorOrderSchema = z.object({
  vendor: z.enum(SUPPLIER_VENDORS),
  vendor_order_id: z.string(),
  /** Our order id as the vendor's order carries it (Airalo: its description; eSIM Go: its eSIMs' customerRef); null when none. */
  reference: z.string().nullable(),
  bundle: z.string(),
  quantity: z.number().int().min(0),
  iccids: z.array(iccidSchema),
  created_at: unixSeconds,
});
export type VendorOrder = z.infer<typeof vendorOrderSchema>;

/** The most sandbox profiles one call stocks up (see `stockSandboxProfiles`). */
export const MAX_SANDBOX_STOCK = 100;

export const stockSandboxProfilesBodySchema = z
  .object({
    bundle: bundleNameSchema,
    count: z.number().int().min(1).max(MAX_SANDBOX_STOCK),
  })
  .strict();

export const profileActionResultSchema = z.object({ iccid: iccidSchema, status: z.enum(['suspended', 'active', 'terminated']) });

const profilePathParams = z.object({ iccid: iccidSchema });

/** A vendor's callback as the gateway received it: the raw body (base64, exactly the bytes signed) and its headers. */
export const supplierCallbackBodySchema = z
  .object({
    body_base64: z.string().max(1_500_000),
    /** Header names in lower case. */
    headers: z.record(z.string(), z.string()),
  })
  .strict();

/**
 * Live supply, owned by catalogue (which holds the supplier adapter): inventory orders profiles
 * before its order transaction, asks for suspend, resume and terminate (cancel) before it
 * records them, and terminates the profiles of an order it could not record. Sandbox profiles
 * are made up by the simulated supplier and bought nowhere, so inventory takes them in stock,
 * many per call, rather than one call per order.
 */
export const internalSupplyContract = c.router(
  {
    orderProfiles: {
      method: 'POST',
      path: '/internal/supply/orders',
      summary: 'Buy live profiles of a bundle from the supplier, once: 200 bought, 202 in doubt (ask findOrder later); an error means nothing was bought',
      body: orderProfilesBodySchema,
      responses: {
        200: purchaseOutcomeSchema,
        202: purchaseOutcomeSchema,
        ...errorResponses([
          'invalid_parameter',
          'capability_not_orderable',
          'pricing_unavailable',
          'supplier_unavailable',
          'supplier_refused',
          'internal_error',
        ]),
      },
    },
    findOrder: {
      method: 'GET',
      path: '/internal/supply/orders/:reference',
      summary: 'The profiles the supplier made for an order placed with this `reference` (our order id), or 404: asked after a crash, before buying again',
      pathParams: z.object({ reference: z.string().min(1).max(100) }),
      // What was ordered, and from when: a vendor whose orders cannot carry our reference
      // (eSIM Go) is searched by them when none carries it (record 0132).
      query: z.object({
        since: z.coerce.number().int().nonnegative().optional(),
        bundle: z.string().min(1).max(100).optional(),
        quantity: z.coerce.number().int().min(1).max(10).optional(),
      }),
      responses: {
        200: z.object({ profiles: z.array(suppliedProfileSchema) }),
        ...errorResponses(['invalid_parameter', 'resource_not_found', 'supplier_unavailable', 'internal_error']),
      },
    },
    profileReport: {
      method: 'GET',
      path: '/internal/supply/profiles/:iccid',
      summary: 'What the supplier says of a live profile now (reconciliation)',
      pathParams: profilePathParams,
      responses: {
        200: profileReportSchema,
        ...errorResponses(['resource_not_found', 'supplier_unavailable', 'internal_error']),
      },
    },
    stockSandboxProfiles: {
      method: 'POST',
      path: '/internal/supply/sandbox-profiles',
      summary: 'Simulated profiles of a sandbox bundle, for a stock that sandbox orders take from (test identities only)',
      body: stockSandboxProfilesBodySchema,
      responses: {
        200: z.object({ profiles: z.array(suppliedProfileSchema) }),
        ...errorResponses(['invalid_parameter', 'live_key_test_resource', 'internal_error']),
      },
    },
    suspendProfile: {
      method: 'POST',
      path: '/internal/supply/profiles/:iccid/suspend',
      summary: 'Suspend a live profile at the supplier',
      pathParams: profilePathParams,
      body: z.object({}).strict(),
      responses: {
        200: profileActionResultSchema,
        ...errorResponses(['capability_not_orderable', 'supplier_unavailable', 'internal_error']),
      },
    },
    resumeProfile: {
      method: 'POST',
      path: '/internal/supply/profiles/:iccid/resume',
      summary: 'Resume a suspended live profile at the supplier',
      pathParams: profilePathParams,
      body: z.object({}).strict(),
      responses: {
        200: profileActionResultSchema,
        ...errorResponses(['capability_not_orderable', 'supplier_unavailable', 'internal_error']),
      },
    },
    terminateProfile: {
      method: 'POST',
      path: '/internal/supply/profiles/:iccid/terminate',
      summary: 'End a live profile at the supplier for good, refunded where it was unused and the vendor refunds (idempotent)',
      pathParams: profilePathParams,
      body: z.object({}).strict(),
      responses: {
        200: terminationSchema,
        ...errorResponses(['capability_not_orderable', 'supplier_unavailable', 'internal_error']),
      },
    },
    refundStatus: {
      method: 'GET',
      path: '/internal/supply/refunds/:iccid',
      summary: 'Whether the vendor has refunded a terminated profile whose refund it reviews (Airalo)',
      pathParams: profilePathParams,
      query: z.object({ vendor_refund_id: z.string().min(1).max(100).optional() }),
      responses: {
        200: vendorRefundStatusSchema,
        ...errorResponses(['resource_not_found', 'supplier_unavailable', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalHeadersSchema, strictStatusCodes: true, metadata: admits('inventory') },
);

/**
 * Calls that act for no account: the vendor's orders for the audit against ours. (A vendor's
 * callback goes from the gateway to catalogue's own route, record 0262.)
 */
export const internalSupplyCallbacksContract = c.router(
  {
    listVendorOrders: {
      method: 'GET',
      path: '/internal/supply/vendor-orders',
      summary: 'The live supplier’s orders placed in a window (Unix seconds), a page at a time, for the audit against ours',
      query: z.object({
        since: z.coerce.number().int().nonnegative(),
        until: z.coerce.number().int().nonnegative(),
        page: z.coerce.number().int().min(1).max(1000).default(1),
      }),
      responses: {
        200: z.object({ orders: z.array(vendorOrderSchema), next_page: z.number().int().nullable() }),
        ...errorResponses(['invalid_parameter', 'supplier_unavailable', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalSystemHeadersSchema, strictStatusCodes: true, metadata: admits('inventory') },
);
