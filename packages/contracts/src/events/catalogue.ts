import type { z } from 'zod';
import {
  apiKeyEventDataSchema,
  balanceLowEventDataSchema,
  esimExpiringEventDataSchema,
  esimReleasedEventDataSchema,
  esimStateEventDataSchema,
  esimToppedUpEventDataSchema,
  esimUsageThresholdEventDataSchema,
  refundEventDataSchema,
} from './data.ts';
import type { EventType } from './types.ts';

export type EventDefinition = { description: string; data: z.ZodTypeAny };

/** Every event type with what emits it and the schema of its `data`. */
export const EVENT_CATALOGUE = {
  'esim.released': {
    description: 'An eSIM was created by a purchase (POST /v1/esim) and can be installed.',
    data: esimReleasedEventDataSchema,
  },
  'esim.installed': {
    description: 'The profile was installed on a device (in the sandbox: by PATCH or by first usage).',
    data: esimStateEventDataSchema,
  },
  'esim.activated': {
    description: 'The eSIM attached to a network for the first time, or was resumed after a suspension.',
    data: esimStateEventDataSchema,
  },
  'esim.suspended': {
    description: 'The eSIM was suspended; it carries no data until it is resumed.',
    data: esimStateEventDataSchema,
  },
  'esim.expired': {
    description:
      'The eSIM ended for good: cancelled, its validity ran out, or its data ran out (`object.expired_reason`: `cancelled`, `validity_ended`, `data_exhausted`).',
    data: esimStateEventDataSchema,
  },
  'esim.usage.threshold': {
    description: 'Data usage reached 50, 80 or 100 percent of the limit (once per threshold per eSIM).',
    data: esimUsageThresholdEventDataSchema,
  },
  'api_key.issued': {
    description: 'An API key was issued to the account.',
    data: apiKeyEventDataSchema,
  },
  'api_key.first_used': {
    description: 'An API key made its first authenticated request.',
    data: apiKeyEventDataSchema,
  },
  'api_key.revoked': {
    description: 'An API key was revoked and can no longer be used.',
    data: apiKeyEventDataSchema,
  },
  'refund.created': {
    description: 'A cancelled live eSIM is being refunded: the supplier is asked for its price back (`status` `pending`).',
    data: refundEventDataSchema,
  },
  'refund.succeeded': {
    description: 'The supplier refunded a cancelled eSIM; its price was credited to the live balance (a `refund` balance transaction).',
    data: refundEventDataSchema,
  },
  'refund.failed': {
    description: 'The supplier did not refund a cancelled eSIM (`object.failure_reason` says why); nothing was credited and the eSIM stays cancelled.',
    data: refundEventDataSchema,
  },
  'balance.low': {
    description: 'The available balance fell below the account’s low-balance threshold (once per crossing).',
    data: balanceLowEventDataSchema,
  },
  'esim.topped_up': {
    description:
      'A bundle was added to the eSIM (POST /v1/esim/{id}/topups): more data, a later `expires_at`. An eSIM revived from ' +
      '`expired` is already back in its earlier state here; the event of that state follows.',
    data: esimToppedUpEventDataSchema,
  },
  'esim.expiring': {
    description:
      'The eSIM’s validity ends soon: `expires_at` is 3 days away, then 1 day (`days_left`), once per mark; again after a ' +
      'top-up moves `expires_at` and the new end comes near. Never for an expired eSIM.',
    data: esimExpiringEventDataSchema,
  },
} as const satisfies Record<EventType, EventDefinition>;

export type EventData<T extends EventType> = z.infer<(typeof EVENT_CATALOGUE)[T]['data']>;
