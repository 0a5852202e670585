import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { untitledBundleSchema } from '../schemas/bundle.ts';
import { bundleNameSchema, environmentSchema } from '../schemas/primitives.ts';
import { internalHeadersSchema } from './headers.ts';

const c = initContract();

/** A bundle as inventory needs it to take an order: retired ones too, with where it can be ordered. */
export const internalBundleSchema = untitledBundleSchema.extend({
  install_window_days: z
    .number()
    .int()
    .min(1)
    .nullable()
    .describe("Days from purchase within which the supplier's profile must be installed (Airalo's `install_window_days`); null when the supplier sets none."),
  data_limit_bytes: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe("The bundle's data in bytes as its supplier counts a megabyte (record 0231); null for unlimited bundles."),
  retired: z.boolean().describe('No longer listed; an order naming it is 409 capability_not_orderable.'),
  environments: z
    .array(environmentSchema)
    .describe('Environments whose catalogue holds the bundle; a live order for a test-only bundle is capability_not_live.'),
});
export type InternalBundle = z.infer<typeof internalBundleSchema>;

export const internalCatalogueContract = c.router(
  {
    getBundle: {
      method: 'GET',
      path: '/internal/bundles/:name',
      summary: 'A bundle by name, retired or not, for the caller’s environment',
      pathParams: z.object({ name: bundleNameSchema }),
      responses: {
        200: internalBundleSchema,
        ...errorResponses(['resource_not_found', 'capability_not_orderable', 'pricing_unavailable', 'supplier_unavailable', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalHeadersSchema, strictStatusCodes: true, metadata: admits('inventory') },
);
