import { z } from 'zod';
import { CURRENCIES, ESIM_BUNDLE_STATES, TOPUP_STATUSES } from './enums.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/**
 * A bundle bought onto an existing eSIM (POST /v1/esim/{id}/topups, record 0240): the same eSIM and
 * activation code, more data and a later `expires_at` (record 0241).
 */
export const topupSchema = titled(
  'Topup',
  z.object({
    object: z.literal('topup'),
    id: idSchema(ID_PREFIXES.topup),
    esim: idSchema(ID_PREFIXES.esim).describe('The eSIM topped up.'),
    bundle: z.string().describe('The bundle added to the eSIM.'),
    price_cents: z.number().int().min(0).describe('What the top-up cost (0 charged in the sandbox unless a simulated balance is set).'),
    currency: z.enum(CURRENCIES),
    status: z.enum(TOPUP_STATUSES).describe('`succeeded`: the bundle is on the eSIM.'),
    simulated: z.boolean().describe('True for a sandbox top-up, false for a live one.'),
    created_at: unixSeconds,
  }),
);
export type Topup = z.infer<typeof topupSchema>;

/** One bundle on an eSIM, the one it was bought with first, then its top-ups in the order they were bought. */
export const esimBundleSchema = titled(
  'EsimBundle',
  z.object({
    object: z.literal('esim_bundle'),
    bundle: z.string().describe('The bundle’s name.'),
    topup: idSchema(ID_PREFIXES.topup).nullable().describe('The top-up that added it (`top_...`); null for the bundle the eSIM was bought with.'),
    state: z
      .enum(ESIM_BUNDLE_STATES)
      .describe(
        '`queued`: waiting for the bundles before it to end; `active`: the one in use; `depleted`: its data is used up; ' +
          '`expired`: its validity ended (or the eSIM was cancelled) with data left.',
      ),
    data_limit_bytes: z.number().int().min(0).nullable().describe('The data it adds; null for an unlimited bundle.'),
    data_used_bytes: z.number().int().min(0).describe('How much of its data has been used (bundles are used in order).'),
    expires_at: unixSeconds.nullable().describe('When its validity ends; null while it is queued.'),
    created_at: unixSeconds.describe('When it was bought.'),
  }),
);
export type EsimBundle = z.infer<typeof esimBundleSchema>;
