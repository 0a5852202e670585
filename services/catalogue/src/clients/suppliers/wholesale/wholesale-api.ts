import { REGIONS, iccidSchema } from '@connectivity/contracts';
import { z } from 'zod';

/**
 * The wholesale supplier's JSON API, as the HTTP adapter reads it and the fake supplier serves
 * it. Bearer-key authenticated; prices are wholesale costs in US cents.
 *
 *   GET  /v1/catalogue                     -> { bundles: WholesaleBundle[] }
 *   GET  /v1/prices                        -> { prices: { bundle, wholesale_cents }[] }
 *   POST /v1/orders { reference, bundle, quantity } -> { reference, profiles: [...] }  (idempotent on reference)
 *   POST /v1/profiles/:iccid/suspend|resume|terminate -> { iccid, status }  (terminate is idempotent)
 *   errors                                  -> { error: { code, message } }
 */
export const wholesaleBundleSchema = z.object({
  name: z.string().min(1),
  description: z.string(),
  data_mb: z.number().int().positive().nullable(),
  unlimited: z.boolean(),
  duration_days: z.number().int().min(1),
  countries: z.array(z.string().regex(/^[A-Z]{2}$/)),
  region: z.enum(REGIONS),
  status: z.enum(['active', 'retired']),
});
export type WholesaleBundle = z.infer<typeof wholesaleBundleSchema>;

export const wholesaleCatalogueSchema = z.object({ bundles: z.array(wholesaleBundleSchema) });

export const wholesalePricesSchema = z.object({
  prices: z.array(z.object({ bundle: z.string(), wholesale_cents: z.number().int().min(0) })),
});

export const wholesaleProfileSchema = z.object({
  iccid: iccidSchema,
  smdp_address: z.string().min(1).regex(/^[^$]+$/),
  matching_id: z.string().min(1).regex(/^[^$]+$/),
});

export type WholesaleProfile = z.infer<typeof wholesaleProfileSchema>;

export const wholesaleOrderRequestSchema = z.object({
  reference: z.string().min(1),
  bundle: z.string().min(1),
  quantity: z.number().int().min(1).max(10),
});

export const wholesaleOrderSchema = z.object({ reference: z.string(), profiles: z.array(wholesaleProfileSchema) });

export const wholesaleProfileStatusSchema = z.object({ iccid: iccidSchema, status: z.enum(['active', 'suspended', 'terminated']) });

/** Error codes the supplier answers with. */
export const WHOLESALE_ERROR_CODES = {
  unauthorized: 'unauthorized',
  unknownBundle: 'unknown_bundle',
  unknownProfile: 'unknown_profile',
  notSupported: 'not_supported',
  outOfStock: 'out_of_stock',
  invalidRequest: 'invalid_request',
  unavailable: 'unavailable',
} as const;

export const wholesaleErrorSchema = z.object({ error: z.object({ code: z.string(), message: z.string().optional() }) });
