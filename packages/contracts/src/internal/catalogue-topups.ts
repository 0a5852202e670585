import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { internalBundleSchema } from './catalogue.ts';
import { inDoubtOutcomeSchema } from './catalogue-supply.ts';
import { errorResponses } from '../routes/operation.ts';
import { bundleNameSchema, iccidSchema } from '../schemas/primitives.ts';
import { internalHeadersSchema } from './headers.ts';

const c = initContract();

export const topupOffersQuerySchema = z
  .object({
    /** The bundle the eSIM was bought with: the sandbox's offers cover its countries (record 0240). */
    bundle: bundleNameSchema,
    /** The eSIM's ICCID: a live supplier is asked what it can add to this profile. */
    iccid: iccidSchema,
  })
  .strict();

/** A live top-up's purchase (record 0245): our top-up id is its reference; `price_cents` what the integrator is charged. */
export const topupPurchaseBodySchema = z
  .object({
    reference: z.string().min(1).max(100),
    iccid: iccidSchema,
    bundle: bundleNameSchema,
    price_cents: z.number().int().min(0),
  })
  .strict();

/** Bought (with what the vendor's own price sells at under our rule), or in doubt as a purchase is (record 0159). */
export const topupPurchaseOutcomeSchema = z.discriminatedUnion('outcome', [
  z.object({ outcome: z.literal('bought'), retail_price_cents: z.number().int().min(0).nullable() }),
  inDoubtOutcomeSchema,
]);
export type TopupPurchaseOutcome = z.infer<typeof topupPurchaseOutcomeSchema>;

/** Top-ups as catalogue supplies them to inventory (records 0240-0248). */
export const internalCatalogueTopupsContract = c.router(
  {
    listTopupOffers: {
      method: 'GET',
      path: '/internal/topup-offers',
      summary: 'The bundles that can be added to a profile, in the caller’s environment, by name',
      query: topupOffersQuerySchema,
      responses: {
        200: z.object({ offers: z.array(internalBundleSchema) }),
        ...errorResponses([
          'resource_not_found',
          'capability_not_orderable',
          'pricing_unavailable',
          'supplier_unavailable',
          'supplier_refused',
          'internal_error',
        ]),
      },
    },
    purchaseTopup: {
      method: 'POST',
      path: '/internal/topups',
      summary: 'Buy a live top-up onto a profile, once: 200 bought, 202 in doubt (ask findTopup later); an error means nothing was bought',
      body: topupPurchaseBodySchema,
      responses: {
        200: topupPurchaseOutcomeSchema,
        202: topupPurchaseOutcomeSchema,
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
    findTopup: {
      method: 'GET',
      path: '/internal/topups/:reference',
      summary: 'Whether the top-up placed under `reference` is on the profile at the supplier: asked before buying again after a doubt',
      pathParams: z.object({ reference: z.string().min(1).max(100) }),
      // `since`: Unix milliseconds, when the top-up's hold was taken (record 0245).
      query: z.object({ iccid: iccidSchema, bundle: bundleNameSchema, since: z.coerce.number().int().nonnegative() }).strict(),
      responses: {
        200: z.object({ found: z.boolean() }),
        ...errorResponses(['capability_not_orderable', 'supplier_unavailable', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalHeadersSchema, strictStatusCodes: true, metadata: admits('inventory') },
);
