import { z } from 'zod';
import { CURRENCIES } from './enums.ts';
import { esimSchema } from './esim.ts';
import { metadataSchema } from './metadata.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/** The 201 of POST /v1/esim: the order and the eSIMs it created (record 0251). */
export const orderSchema = titled(
  'Order',
  z.object({
    object: z.literal('order'),
    id: idSchema(ID_PREFIXES.order),
    bundle: z.string(),
    quantity: z.number().int().min(1).max(10),
    price_cents: z.number().int().min(0).describe('Unit price.'),
    total_cents: z.number().int().min(0),
    currency: z.enum(CURRENCIES),
    rated: z.boolean().describe('False in the sandbox: nothing is charged.'),
    esims: z.array(esimSchema),
    simulated: z.boolean(),
    metadata: metadataSchema,
    test_clock: idSchema(ID_PREFIXES.testClock).nullable().describe('The test clock the order was placed on; null in real time.'),
    created_at: unixSeconds,
  }),
);
export type Order = z.infer<typeof orderSchema>;
