import { openApiOverride } from '../schemas/openapi-override.ts';
import { z } from 'zod';
import { apiKeySchema } from '../schemas/api-key.ts';
import { balanceSchema } from '../schemas/balance.ts';
import { refundSchema } from '../schemas/refund.ts';
import { topupSchema } from '../schemas/topup.ts';
import { ESIM_STATES, EXPIRING_MARKS, USAGE_THRESHOLDS } from '../schemas/enums.ts';
import { appleInstallUrl, esimSchema } from '../schemas/esim.ts';
import { titled } from '../schemas/titled.ts';

// `data` of each event type (records 0253, 0252).

/**
 * The eSIM in event data. Events are kept and replayed for 30 days, so one recorded before eSIMs
 * had `metadata`, `apple_install_url`, `test_clock` and `expired_reason` is read with them filled in
 * (`{}`, the link of its activation code, null, null) instead of failing a receiver that parses events. The cast keeps the eSIM's types.
 */
const eventEsimSchema = z.preprocess((value) => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const esim = value as Record<string, unknown>;
  const code = typeof esim.activation_code === 'string' ? esim.activation_code : null;
  return {
    ...esim,
    metadata: esim.metadata ?? {},
    apple_install_url: esim.apple_install_url === undefined ? appleInstallUrl(code) : esim.apple_install_url,
    test_clock: esim.test_clock ?? null,
    expired_reason: esim.expired_reason ?? null,
  };
}, esimSchema) as unknown as typeof esimSchema;

/** esim.* state events: the eSIM after the move and the state it left. */
export const esimStateEventDataSchema = titled(
  'EsimStateEventData',
  z.object({
    object: eventEsimSchema,
    previous_state: z.enum(ESIM_STATES),
  }),
);

/** esim.released: a purchase creates the eSIM, so there is no previous state. */
export const esimReleasedEventDataSchema = titled(
  'EsimReleasedEventData',
  z.object({
    object: eventEsimSchema,
    previous_state: z.enum(ESIM_STATES).nullable().describe('Null: the eSIM was just created by a purchase.'),
  }),
);

const [half, most, full] = USAGE_THRESHOLDS;

export const esimUsageThresholdEventDataSchema = titled(
  'EsimUsageThresholdEventData',
  z.object({
    object: eventEsimSchema,
    threshold_percent: openApiOverride(z.union([z.literal(half), z.literal(most), z.literal(full)]), { type: 'integer' }),
    data_used_bytes: z.number().int().min(0),
    data_limit_bytes: z.number().int().min(0),
  }),
);

export const apiKeyEventDataSchema = titled('ApiKeyEventData', z.object({ object: apiKeySchema }));

/** refund.*: the refund after the change. */
export const refundEventDataSchema = titled('RefundEventData', z.object({ object: refundSchema }));

/** balance.low: the balance right after it fell below the threshold. */
export const balanceLowEventDataSchema = titled(
  'BalanceLowEventData',
  z.object({
    object: balanceSchema,
    threshold_cents: z.number().int().min(0).describe('The threshold `available_cents` fell below.'),
  }),
);

/**
 * esim.topped_up: the eSIM after the top-up (more data, a later `expires_at`; a revived eSIM already back in
 * the state it had before it expired), the state it was in before, and the top-up (record 0243).
 */
export const esimToppedUpEventDataSchema = titled(
  'EsimToppedUpEventData',
  z.object({
    object: eventEsimSchema,
    previous_state: z.enum(ESIM_STATES),
    topup: topupSchema,
  }),
);

const [threeDays, oneDay] = EXPIRING_MARKS;

/**
 * esim.expiring: the eSIM as it is (its `expires_at` the end announced) and the mark reached: 3 or 1 days
 * before `expires_at` (record 0236).
 */
export const esimExpiringEventDataSchema = titled(
  'EsimExpiringEventData',
  z.object({
    object: eventEsimSchema,
    days_left: openApiOverride(z.union([z.literal(threeDays), z.literal(oneDay)]), { type: 'integer' }).describe(
      'The mark reached: `expires_at` is this many days away (3, then 1).',
    ),
  }),
);

export type EsimStateEventData = z.infer<typeof esimStateEventDataSchema>;
export type EsimReleasedEventData = z.infer<typeof esimReleasedEventDataSchema>;
export type EsimUsageThresholdEventData = z.infer<typeof esimUsageThresholdEventDataSchema>;
export type ApiKeyEventData = z.infer<typeof apiKeyEventDataSchema>;
export type RefundEventData = z.infer<typeof refundEventDataSchema>;
export type BalanceLowEventData = z.infer<typeof balanceLowEventDataSchema>;
export type EsimToppedUpEventData = z.infer<typeof esimToppedUpEventDataSchema>;
export type EsimExpiringEventData = z.infer<typeof esimExpiringEventDataSchema>;
