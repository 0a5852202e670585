import { z } from 'zod';
import { CURRENCIES, VALIDITY_STARTS } from './enums.ts';
import { countryCodeSchema } from './primitives.ts';
import { titled } from './titled.ts';

const bundleShape = {
  object: z.literal('bundle'),
  name: z.string().describe('Unique, stable name, e.g. `esim_5GB_30D_EU`; a bundle has no id.'),
  description: z.string(),
  data_mb: z.number().int().min(0).nullable().describe('Null for unlimited bundles.'),
  unlimited: z.boolean(),
  duration_days: z.number().int().min(1).optional().describe('Absent when the bundle has no stated duration.'),
  validity_start: z
    .enum(VALIDITY_STARTS)
    .describe(
      'When `duration_days` starts counting: at `purchase`, or at `first_use` (the first data use the supplier reports); ' +
        'an eSIM of a `first_use` bundle has `expires_at` null until then.',
    ),
  countries: z.array(countryCodeSchema).describe('ISO 3166-1 alpha-2 codes, upper case.'),
  price_cents: z.number().int().min(0),
  currency: z.enum(CURRENCIES),
  simulated: z.boolean(),
  rated: z.boolean().describe('False in the sandbox: nothing is charged.'),
};

export const bundleSchema = titled('Bundle', z.object(bundleShape));
export type Bundle = z.infer<typeof bundleSchema>;

/** The shape without its OpenAPI title, for schemas that extend it (internal contracts). */
export const untitledBundleSchema = z.object(bundleShape);
