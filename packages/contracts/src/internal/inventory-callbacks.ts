import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { SUPPLIER_VENDORS, supplierCallbackBodySchema } from './catalogue-supply.ts';
import { internalSystemHeadersSchema } from './headers.ts';

const c = initContract();

/** What inventory did with a callback: the reports it carried, and how many were new (a duplicate stores none). */
export const supplierCallbackReceiptSchema = z.object({
  received: z.number().int().min(0),
  stored: z.number().int().min(0),
});
export type SupplierCallbackReceipt = z.infer<typeof supplierCallbackReceiptSchema>;

/**
 * A vendor's callback, passed on by the gateway's public hook (`POST /hooks/<vendor>`) for no
 * account: inventory has catalogue verify and read it, stores its reports in the inbox and answers
 * at once; a worker applies them. 401 `signature_invalid`: a missing or wrong signature, nothing stored
 * (record 0204; `key_invalid` is the internal credential's);
 * 404 `resource_not_found`: the vendor is not the configured live supplier.
 */
export const internalInventoryCallbacksContract = c.router(
  {
    receiveSupplierCallback: {
      method: 'POST',
      path: '/internal/supplier-callbacks/:vendor',
      summary: 'Store the profile reports of a verified supplier callback for the life-cycle worker',
      pathParams: z.object({ vendor: z.enum(SUPPLIER_VENDORS) }),
      body: supplierCallbackBodySchema,
      responses: {
        200: supplierCallbackReceiptSchema,
        ...errorResponses(['invalid_parameter', 'key_invalid', 'signature_invalid', 'resource_not_found', 'internal_error']),
      },
    },
  },
  { baseHeaders: internalSystemHeadersSchema, strictStatusCodes: true, metadata: admits('gateway') },
);
