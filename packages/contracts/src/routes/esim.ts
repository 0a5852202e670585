import { openApiOverride } from '../schemas/openapi-override.ts';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { ESIM_STATES } from '../schemas/enums.ts';
import { esimSchema } from '../schemas/esim.ts';
import { listOf } from '../schemas/list.ts';
import { foldMetadataQuery, metadataFilterSchema, metadataInputSchema } from '../schemas/metadata.ts';
import { orderSchema } from '../schemas/order.ts';
import { bundleNameSchema } from '../schemas/primitives.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { bodyInteger, cursorQuery, limitQuery } from './params.ts';

const c = initContract();

// Inline, not a named component: generators such as openapi-typescript type a defaulted field of a
// shared component as required, which would make `quantity` mandatory in a generated client.
export const createEsimBodySchema = z
  .object({
    bundle: bundleNameSchema.describe('The name of the bundle to buy, e.g. `esim_5GB_30D_EU`.'),
    quantity: bodyInteger().min(1).max(10).default(1).describe('How many eSIMs to buy, 1 to 10; default 1.'),
    metadata: metadataInputSchema.optional(),
    test_clock: z.string().min(1).max(200).optional().describe('A test clock id (`clock_...`): the eSIMs live in its time. Test keys only.'),
  })
  .strict();

// `state`, `metadata` or both; a body with neither misses `state`, the field the specification requires.
export const updateEsimBodySchema = titled(
  'UpdateEsimRequest',
  openApiOverride(
    z
      .object({
        state: z.enum(ESIM_STATES).optional().describe('The target state.'),
        metadata: metadataInputSchema.optional(),
      })
      .strict()
      .superRefine((body, ctx) => {
        if (body.state === undefined && body.metadata === undefined) {
          ctx.addIssue({ code: z.ZodIssueCode.invalid_type, expected: 'string', received: 'undefined', path: ['state'], message: 'Required' });
        }
      }),
    { minProperties: 1 },
  ),
);

const listEsimsQueryObject = z.object({ cursor: cursorQuery, limit: limitQuery, metadata: metadataFilterSchema.optional() }).strict();

/**
 * GET /v1/esim: the page, and `metadata[key]=value` pairs that every eSIM listed must have. The cast
 * keeps the client-side type of the object (a preprocess would type the input `unknown`).
 */
export const listEsimsQuerySchema = z.preprocess(foldMetadataQuery, listEsimsQueryObject) as unknown as z.ZodEffects<
  typeof listEsimsQueryObject,
  z.output<typeof listEsimsQueryObject>,
  z.input<typeof listEsimsQueryObject>
>;

const esimPathParams = z.object({
  id: z.string().min(1).max(200).describe('The eSIM id (`esim_...`) or its 19-digit ICCID.'),
});

const resourceErrors = ['test_key_live_resource', 'live_key_test_resource', 'resource_not_found'] as const;

/** What GET /v1/esim/{id}/qr_code answers, the default first. */
export const QR_CODE_MEDIA_TYPES = ['image/png', 'image/svg+xml'] as const;
export type QrCodeMediaType = (typeof QR_CODE_MEDIA_TYPES)[number];

/** Orders and eSIMs, owned by the inventory service. */
export const esimRoutes = c.router({
  listEsims: {
    path: '/v1/esim',
    summary: 'List eSIMs',
    description:
      'Lists the eSIMs of the account in the key’s environment, newest first. `metadata[key]=value` (repeatable, ' +
      'one per key) keeps only the eSIMs whose metadata has every pair given.',
    query: listEsimsQuerySchema,
    ...operation(
      'GET',
      { 200: listOf('EsimList', esimSchema) },
      {
        service: 'inventory',
        scopes: ['esim:read'],
        errors: ['invalid_parameter'],
      },
    ),
  },
  createEsim: {
    path: '/v1/esim',
    summary: 'Buy eSIMs',
    description:
      'Buys `quantity` eSIMs of a bundle. Returns the order with the eSIMs it created, each in state `released` ' +
      '(one `esim.released` event each). Sandbox orders are simulated and never charged (unless a simulated balance is set ' +
      'with POST /v1/test/balance). A live order holds its price on the balance before the supplier is asked and is one ' +
      'purchase at the supplier whatever its speed: while the supplier’s answer is unknown, a retry with the same ' +
      '`Idempotency-Key` gets 503 `supplier_unavailable` with `Retry-After`, never a second purchase. With `test_clock` ' +
      'the eSIMs are created at the clock’s time and age only when it is advanced. A test order that would pass the test eSIMs ' +
      'an account may create in a UTC day (1,000 unless the operator set another figure) gives 403 `quota_exceeded`.',
    body: createEsimBodySchema,
    ...operation(
      'POST',
      { 201: orderSchema },
      {
        service: 'inventory',
        scopes: ['esim:write'],
        errors: [
          'missing_parameter',
          'invalid_parameter',
          'balance_insufficient',
          'verification_required',
          'capability_not_orderable',
          'pricing_unavailable',
          'supplier_unavailable',
          'supplier_refused',
          // `test_clock`: a live key, or a clock that is not the caller's.
          'live_key_test_resource',
          'resource_not_found',
          // Test eSIMs created per day (TEST_ESIMS_PER_DAY).
          'quota_exceeded',
        ],
      },
    ),
  },
  getEsim: {
    path: '/v1/esim/:id',
    summary: 'Get an eSIM',
    description: 'Reads one eSIM by its id or its ICCID.',
    pathParams: esimPathParams,
    ...operation('GET', { 200: esimSchema }, { service: 'inventory', scopes: ['esim:read'], errors: resourceErrors }),
  },
  updateEsim: {
    path: '/v1/esim/:id',
    summary: 'Change an eSIM’s state or metadata',
    description:
      'Moves the eSIM to `state` and emits the event of that state. A move the life cycle does not allow is 409 ' +
      '`invalid_state_transition`; asking for the current state changes nothing. Live keys may only suspend, ' +
      'resume (`active` from `suspended`) and cancel (`expired`). `metadata` is merged into the eSIM’s metadata ' +
      '(a key set to `""` is removed); a change of metadata alone emits no event. The body needs `state`, ' +
      '`metadata` or both.',
    pathParams: esimPathParams,
    body: updateEsimBodySchema,
    ...operation(
      'PATCH',
      { 200: esimSchema },
      {
        service: 'inventory',
        scopes: ['esim:write'],
        errors: ['missing_parameter', 'invalid_parameter', ...resourceErrors, 'invalid_state_transition', 'capability_not_orderable', 'supplier_unavailable'],
      },
    ),
  },
  getEsimQrCode: {
    path: '/v1/esim/:id/qr_code',
    summary: 'Get an eSIM’s install QR code',
    description:
      'The activation code as a QR code image to scan on a handset: `image/png` by default, `image/svg+xml` when ' +
      '`Accept` prefers it. An eSIM without an activation code is 404 `resource_not_found`.',
    pathParams: esimPathParams,
    ...operation(
      'GET',
      { 200: c.otherResponse({ contentType: 'image/png', body: c.type<Uint8Array>() }) },
      {
        service: 'inventory',
        scopes: ['esim:read'],
        errors: resourceErrors,
        produces: QR_CODE_MEDIA_TYPES,
      },
    ),
  },
});
