import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { admits } from './callers.ts';
import { errorResponses } from '../routes/operation.ts';
import { cursorQuery, limitQuery } from '../routes/params.ts';
import { listOf } from '../schemas/list.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from '../schemas/primitives.ts';
import { operatorHeadersSchema } from './inventory-accounts.ts';

const c = initContract();

export const SUPPLIER_RELEASE_STATUSES = ['pending', 'released', 'abandoned'] as const;
export type SupplierReleaseStatus = (typeof SUPPLIER_RELEASE_STATUSES)[number];

/**
 * The supplier profiles of a live order we failed to record, to be terminated at the supplier
 * (DECISIONS "Live supply", compensation). Its id is the id the unrecorded order would have had.
 */
export const supplierReleaseSchema = z.object({
  object: z.literal('supplier_release'),
  id: idSchema(ID_PREFIXES.order),
  account_id: idSchema(ID_PREFIXES.account),
  iccids: z.array(z.string()),
  reason: z.string().describe('Why the order was not recorded (an error code, or the database error).'),
  status: z.enum(SUPPLIER_RELEASE_STATUSES),
  attempts: z.number().int().min(0).describe('Calls made to the supplier since it was recorded or last retried by the operator.'),
  next_attempt_at: unixSeconds.nullable().describe('When the worker tries next; null unless pending.'),
  last_error: z.string().nullable(),
  created_at: unixSeconds,
  finished_at: unixSeconds.nullable().describe('When it was released or abandoned; null while pending.'),
});
export type SupplierRelease = z.infer<typeof supplierReleaseSchema>;

export const supplierReleaseListSchema = listOf('SupplierReleaseList', supplierReleaseSchema);

export const listSupplierReleasesQuerySchema = z
  .object({ status: z.enum(SUPPLIER_RELEASE_STATUSES).optional(), cursor: cursorQuery, limit: limitQuery })
  .strict();

export const internalInventoryReleasesContract = c.router(
  {
    listSupplierReleases: {
      method: 'GET',
      path: '/internal/supplier-releases',
      summary: 'Supplier releases, newest first, optionally of one status (operator command line)',
      query: listSupplierReleasesQuerySchema,
      responses: {
        200: supplierReleaseListSchema,
        ...errorResponses(['invalid_parameter', 'internal_error']),
      },
    },
    retrySupplierRelease: {
      method: 'POST',
      path: '/internal/supplier-releases/:releaseId/retry',
      summary: 'Put an abandoned (or pending) release back to pending, due now, with a fresh retry schedule',
      pathParams: z.object({ releaseId: idSchema(ID_PREFIXES.order) }),
      body: c.noBody(),
      responses: {
        200: supplierReleaseSchema,
        ...errorResponses(['invalid_parameter', 'resource_not_found', 'invalid_state_transition', 'internal_error']),
      },
    },
  },
  { baseHeaders: operatorHeadersSchema, strictStatusCodes: true, metadata: admits('gateway-admin') },
);
