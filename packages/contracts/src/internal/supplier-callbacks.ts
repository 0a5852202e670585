import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { profileReportSchema, SUPPLIER_VENDORS, supplierCallbackBodySchema, type SupplierVendor } from './catalogue-supply.ts';
import { internalSystemHeadersSchema } from './headers.ts';

const c = initContract();

/** What catalogue did with a callback: the reports it carried, and how many it handed on (a callback handed on before hands on none). */
export const supplierCallbackReceiptSchema = z.object({
  received: z.number().int().min(0),
  stored: z.number().int().min(0),
});
export type SupplierCallbackReceipt = z.infer<typeof supplierCallbackReceiptSchema>;

/**
 * A vendor's callback, passed on by the gateway's public hook (`POST /hooks/<vendor>`) for no
 * account to catalogue, which holds the vendor's secret: it verifies and reads it, and answers
 * once its reports are on the bus for inventory (record 0262). 401 `signature_invalid`: a missing
 * or wrong signature, nothing handed on (record 0204; `key_invalid` is the internal credential's);
 * 404 `resource_not_found`: the vendor is not the configured live supplier.
 */
export const internalSupplierCallbacksContract = c.router(
  {
    receiveSupplierCallback: {
      method: 'POST',
      path: '/internal/supplier-callbacks/:vendor',
      summary: 'Verify and read a supplier callback, and hand its profile reports to inventory on the bus',
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

/**
 * The reports of one verified callback, as catalogue publishes them for inventory's inbox (record
 * 0262): on `events.live.supplier_report.<vendor>`, a subject of no integrator event (callbacks
 * are the live supplier's), which notifications' consumer does not take.
 */
export const supplierReportsMessageSchema = z.object({
  vendor: z.enum(SUPPLIER_VENDORS),
  reports: z.array(profileReportSchema),
  /** When catalogue took the callback (ms since the epoch): the report's arrival in the inbox. */
  received_at_ms: z.number().int().min(0),
});
export type SupplierReportsMessage = z.infer<typeof supplierReportsMessageSchema>;

/** The family of the supplier reports' subjects, beside the event families (`esim`, `refund`, …). */
export const SUPPLIER_REPORT_FAMILY = 'supplier_report';
/** The bus subject of a vendor's reports. */
export const supplierReportsSubject = (vendor: SupplierVendor): string => `events.live.${SUPPLIER_REPORT_FAMILY}.${vendor}`;
/** Every vendor's reports, as inventory's consumer filters them. */
export const SUPPLIER_REPORTS_FILTER = `events.*.${SUPPLIER_REPORT_FAMILY}.>`;
