import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { internalBundleSchema } from './catalogue.ts';
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

/** Top-ups as catalogue supplies them to inventory (records 0240-0244). */
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
  },
  { baseHeaders: internalHeadersSchema, strictStatusCodes: true, metadata: admits('inventory') },
);
