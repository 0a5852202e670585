import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { ESIM_STATES } from '../schemas/enums.ts';
import { esimSchema } from '../schemas/esim.ts';
import { listOf } from '../schemas/list.ts';
import { orderSchema } from '../schemas/order.ts';
import { bundleNameSchema } from '../schemas/primitives.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { bodyInteger, paginationQuery } from './params.ts';

const c = initContract();

// Inline, not a named component: generators such as openapi-typescript type a defaulted field of a
// shared component as required, which would make `quantity` mandatory in a generated client.
export const createEsimBodySchema = z
  .object({
    bundle: bundleNameSchema.describe('The name of the bundle to buy, e.g. `esim_5GB_30D_EU`.'),
    quantity: bodyInteger().min(1).max(10).default(1).describe('How many eSIMs to buy, 1 to 10; default 1.'),
  })
  .strict();

export const updateEsimBodySchema = titled(
  'UpdateEsimRequest',
  z.object({ state: z.enum(ESIM_STATES).describe('The target state.') }).strict(),
);

const esimPathParams = z.object({
  id: z.string().min(1).max(200).describe('The eSIM id (`esim_...`) or its 19-digit ICCID.'),
});

const resourceErrors = ['test_key_live_resource', 'live_key_test_resource', 'resource_not_found'] as const;

/** Orders and eSIMs, owned by the inventory service. */
export const esimRoutes = c.router({
  listEsims: {
    path: '/v1/esim',
    summary: 'List eSIMs',
    description: 'Lists the eSIMs of the account in the key’s environment, newest first.',
    query: paginationQuery,
    ...operation('GET', { 200: listOf('EsimList', esimSchema) }, {
      service: 'inventory',
      scopes: ['esim:read'],
      errors: ['invalid_parameter'],
    }),
  },
  createEsim: {
    path: '/v1/esim',
    summary: 'Buy eSIMs',
    description:
      'Buys `quantity` eSIMs of a bundle. Returns the order with the eSIMs it created, each in state `released` ' +
      '(one `esim.released` event each). Sandbox orders are simulated and never charged.',
    body: createEsimBodySchema,
    ...operation('POST', { 201: orderSchema }, {
      service: 'inventory',
      scopes: ['esim:write'],
      errors: [
        'missing_parameter',
        'invalid_parameter',
        'balance_insufficient',
        'verification_required',
        'capability_not_orderable',
        'supplier_refused',
      ],
    }),
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
    summary: 'Change an eSIM’s state',
    description:
      'Moves the eSIM to `state` and emits the event of that state. A move the life cycle does not allow is 409 ' +
      '`invalid_state_transition`; asking for the current state changes nothing. Live keys may only suspend, ' +
      'resume (`active` from `suspended`) and cancel (`expired`).',
    pathParams: esimPathParams,
    body: updateEsimBodySchema,
    ...operation('PATCH', { 200: esimSchema }, {
      service: 'inventory',
      scopes: ['esim:write'],
      errors: ['missing_parameter', 'invalid_parameter', ...resourceErrors, 'invalid_state_transition', 'capability_not_orderable'],
    }),
  },
});
