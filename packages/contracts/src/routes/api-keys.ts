import { initContract } from '@ts-rest/core';
import { apiKeySchema } from '../schemas/api-key.ts';
import { listOf } from '../schemas/list.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

/** API keys are issued and revoked by the operator command line; the API only lists them. */
export const apiKeyRoutes = c.router({
  listApiKeys: {
    path: '/v1/api_keys',
    summary: 'List API keys',
    description: 'Lists the keys of the account in catalogue order. Secrets are never returned.',
    query: paginationQuery,
    ...operation(
      'GET',
      { 200: listOf('ApiKeyList', apiKeySchema) },
      {
        service: 'gateway',
        scopes: ['keys:read'],
        errors: ['invalid_parameter'],
      },
    ),
  },
});
