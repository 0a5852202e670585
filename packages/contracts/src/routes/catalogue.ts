import { initContract } from '@ts-rest/core';
import { bundleSchema } from '../schemas/bundle.ts';
import { listOf } from '../schemas/list.ts';
import { operation } from './operation.ts';
import { countriesQuery, paginationQuery, regionQuery } from './params.ts';

const c = initContract();

/** The bundle catalogue, owned by the catalogue service. */
export const catalogueRoutes = c.router({
  listBundles: {
    path: '/v1/esim/bundles',
    summary: 'List bundles',
    description: 'Lists the bundles available to buy, ordered by name. `countries` keeps bundles that cover all the listed countries.',
    query: paginationQuery.extend({ countries: countriesQuery.optional(), region: regionQuery.optional() }),
    ...operation(
      'GET',
      { 200: listOf('BundleList', bundleSchema) },
      {
        service: 'catalogue',
        scopes: ['catalogue:read'],
        errors: ['invalid_parameter', 'capability_not_orderable', 'pricing_unavailable', 'supplier_unavailable'],
      },
    ),
  },
});
