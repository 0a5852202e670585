import { z } from 'zod';
import { ESIM_STATES, EXPIRED_REASONS, VALIDITY_STARTS } from './enums.ts';
import { metadataSchema } from './metadata.ts';
import { ACTIVATION_CODE_PATTERN, ID_PREFIXES, iccidSchema, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/** Apple's link that opens the installation of an eSIM on an iPhone, before the URL-encoded activation code. */
export const APPLE_INSTALL_URL_PREFIX = 'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=';

/** `apple_install_url` of an eSIM: null when it has no activation code. */
export const appleInstallUrl = (activationCode: string | null): string | null =>
  activationCode === null ? null : `${APPLE_INSTALL_URL_PREFIX}${encodeURIComponent(activationCode)}`;

// Fields the specification marks optional are always sent (null where the spec allows null), so clients get plain types.
export const esimSchema = titled(
  'Esim',
  z.object({
    object: z.literal('esim'),
    id: idSchema(ID_PREFIXES.esim),
    iccid: iccidSchema,
    state: z.enum(ESIM_STATES),
    expired_reason: z
      .enum(EXPIRED_REASONS)
      .nullable()
      .describe(
        "Why the eSIM expired: `validity_ended` (its bundle's duration ran out), `data_exhausted` (it used all its data) " +
          'or `cancelled` (DELETE /v1/esim/{id}), or `supplier_deleted` (a live eSIM its supplier removed from its account); ' +
          'null until the eSIM is `expired`.',
      ),
    bundle: z.string().nullable(),
    data_used_bytes: z.number().int().min(0),
    data_limit_bytes: z.number().int().min(0).nullable(),
    activation_code: z
      .string()
      .regex(ACTIVATION_CODE_PATTERN)
      .nullable()
      .describe('LPA string `LPA:1$<smdp_address>$<matching_id>`, the content of the install QR code.'),
    apple_install_url: z
      .string()
      .url()
      .nullable()
      .describe(
        `Opens the eSIM installation on an iPhone (iOS 17.4 or later): \`${APPLE_INSTALL_URL_PREFIX}\` ` +
          'followed by the URL-encoded activation code; null when the eSIM has no activation code.',
      ),
    smdp_address: z.string().nullable(),
    matching_id: z.string().nullable(),
    validity_start: z
      .enum(VALIDITY_STARTS)
      .describe("When the bundle's validity starts counting: at `purchase`, or at `first_use` (as the supplier reports it)."),
    expires_at: unixSeconds
      .nullable()
      .describe(
        'When the bundle runs out: the start of its validity plus its duration, as the supplier counts it. Null when the bundle ' +
          'has no stated duration, and for a `first_use` bundle until its first use is reported.',
      ),
    install_by: unixSeconds
      .nullable()
      .describe('The latest time the eSIM can be installed, where the supplier sets one (the profile is recycled after it); null otherwise.'),
    created_at: unixSeconds,
    updated_at: unixSeconds,
    simulated: z.boolean().describe('True for a sandbox resource, false for a live one.'),
    metadata: metadataSchema,
    test_clock: idSchema(ID_PREFIXES.testClock)
      .nullable()
      .describe('The test clock whose time the eSIM lives in (`clock_...`); null for an eSIM in real time.'),
  }),
);
export type Esim = z.infer<typeof esimSchema>;
