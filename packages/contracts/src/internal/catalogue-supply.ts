import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errorResponses } from '../routes/operation.ts';
import { bundleNameSchema, iccidSchema } from '../schemas/primitives.ts';
import { internalHeadersSchema } from './headers.ts';

const c = initContract();

/** A profile the supplier made for a live order: what inventory stores on the eSIM. */
export const suppliedProfileSchema = z.object({
  iccid: iccidSchema,
  smdp_address: z.string().min(1),
  matching_id: z.string().min(1),
});
export type SuppliedProfile = z.infer<typeof suppliedProfileSchema>;

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
