import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from '../routes/operation.ts';
import { ESIM_STATES, EXPIRED_REASONS } from '../schemas/enums.ts';
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
  /** When the supplier observed this (unix seconds): reports older than what inventory holds change nothing. */
  observed_at: unixSeconds,
});
export type ProfileReport = z.infer<typeof profileReportSchema>;

export const orderProfilesBodySchema = z
  .object({
    /** The order id: the supplier de-duplicates on it, so a retried call never buys twice. */
    reference: z.string().min(1).max(100),
    bundle: bundleNameSchema,
    quantity: z.number().int().min(1).max(10),
  })
  .strict();

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
      summary: 'Order live profiles of a bundle from the supplier (idempotent on `reference`)',
      body: orderProfilesBodySchema,
      responses: {
        200: z.object({ profiles: z.array(suppliedProfileSchema) }),
        ...errorResponses(['invalid_parameter', 'capability_not_orderable', 'supplier_refused', 'internal_error']),
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
      summary: 'End a live profile at the supplier for good (idempotent: terminating twice is fine)',
      pathParams: profilePathParams,
      body: z.object({}).strict(),
      responses: {
        200: profileActionResultSchema,
        ...errorResponses(['capability_not_orderable', 'supplier_unavailable', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalHeadersSchema, strictStatusCodes: true },
);

/**
 * Calls that act for no account: a vendor's callback, verified (its signature, on the raw body)
 * and read by the adapter of the configured live supplier. 401 `key_invalid`: the signature is
 * missing or wrong; 404 `resource_not_found`: `vendor` is not the configured live supplier.
 */
export const internalSupplyCallbacksContract = c.router(
  {
    parseCallback: {
      method: 'POST',
      path: '/internal/supply/callbacks/:vendor',
      summary: 'Verify and read a supplier callback into profile reports (stores nothing)',
      pathParams: z.object({ vendor: z.enum(SUPPLIER_VENDORS) }),
      body: supplierCallbackBodySchema,
      responses: {
        200: z.object({ reports: z.array(profileReportSchema) }),
        ...errorResponses(['invalid_parameter', 'key_invalid', 'resource_not_found', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalSystemHeadersSchema, strictStatusCodes: true },
);
