import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { bundleSchema } from '../schemas/bundle.ts';
import { listOf } from '../schemas/list.ts';
import { bundleNameSchema } from '../schemas/primitives.ts';
import { esimBundleSchema, topupSchema } from '../schemas/topup.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

const esimPathParams = z.object({
  id: z.string().min(1).max(200).describe('The eSIM id (`esim_...`) or its 19-digit ICCID.'),
});

export const createTopupBodySchema = titled(
  'CreateTopupRequest',
  z
    .object({
      bundle: bundleNameSchema.describe('The bundle to add, one of GET /v1/esim/{id}/topups, e.g. `esim_5GB_30D_EU`.'),
    })
    .strict(),
);

const resourceErrors = ['test_key_live_resource', 'live_key_test_resource', 'resource_not_found'] as const;

/** Top-ups of an eSIM (records 0240-0243), owned by the inventory service. */
export const topupRoutes = c.router({
  listEsimTopupOffers: {
    path: '/v1/esim/:id/topups',
    summary: 'List the bundles that can top an eSIM up',
    description:
      'The bundles that can be added to this eSIM (its countries covered, the same kind: limited or unlimited), ordered by ' +
      'name: the sandbox’s for a test eSIM, the supplier’s compatible offers for a live one. A cancelled eSIM has none.',
    pathParams: esimPathParams,
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('TopupOfferList', bundleSchema) },
      { service: 'inventory', scopes: ['esim:read'], errors: ['invalid_parameter', ...resourceErrors, 'supplier_unavailable', 'pricing_unavailable'] },
    ),
  },
  createEsimTopup: {
    path: '/v1/esim/:id/topups',
    summary: 'Top an eSIM up',
    description:
      'Adds a bundle to the eSIM: the same eSIM and activation code, nothing to reinstall. Its data is added to ' +
      '`data_limit_bytes` and `expires_at` moves on by the bundle’s duration. An eSIM that expired because its data ran out ' +
      'or its validity ended is revived: back to the state it had before, `expired_reason` null (`esim.topped_up`, then the ' +
      'event of that state). A cancelled eSIM is 409 `invalid_state_transition`; a bundle that is not one of its offers is ' +
      '400 `invalid_parameter`. Paid as an order is: live, held on the balance before the supplier is asked and bought once ' +
      'whatever its speed; sandbox, from the simulated balance when one is set.',
    pathParams: esimPathParams,
    body: createTopupBodySchema,
    ...operation(
      'POST',
      { 201: topupSchema },
      {
        service: 'inventory',
        scopes: ['esim:write'],
        errors: [
          'missing_parameter',
          'invalid_parameter',
          ...resourceErrors,
          'invalid_state_transition',
          'balance_insufficient',
          'verification_required',
          'capability_not_orderable',
          'pricing_unavailable',
          'supplier_unavailable',
          'supplier_refused',
        ],
      },
    ),
  },
  listEsimBundles: {
    path: '/v1/esim/:id/bundles',
    summary: 'List the bundles on an eSIM',
    description:
      'The bundle the eSIM was bought with, then each top-up’s, in the order they are used, each with its own state: ' +
      '`queued`, `active`, `depleted` or `expired`.',
    pathParams: esimPathParams,
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('EsimBundleList', esimBundleSchema) },
      { service: 'inventory', scopes: ['esim:read'], errors: ['invalid_parameter', ...resourceErrors] },
    ),
  },
});
