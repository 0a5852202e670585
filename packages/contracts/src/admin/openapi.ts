import { generateOpenApi } from '@ts-rest/open-api';
import type { OpenAPIObject } from 'openapi3-ts';
import { adminContract } from './contract.ts';

/**
 * The admin API's own OpenAPI document, apart from the public one: operators read it at
 * GET /admin/openapi.json (admin token) or in dist/admin-openapi.json; integrators never see it.
 */
export function buildAdminOpenApiDocument(options: { serverUrl?: string } = {}): OpenAPIObject {
  const generated = generateOpenApi(
    adminContract,
    {
      info: {
        title: 'Connectivity Service operator admin API',
        version: '1',
        description: 'Accounts, keys, verification, balance, live ordering, rate limits and supplier releases. Bearer ADMIN_TOKEN.',
      },
      servers: [{ url: options.serverUrl ?? '/', description: 'The gateway’s admin listener' }],
    },
    { setOperationId: true },
  );
  return {
    ...generated,
    openapi: '3.0.3',
    security: [{ adminToken: [] }],
    components: { ...generated.components, securitySchemes: { adminToken: { type: 'http', scheme: 'bearer' } } },
  };
}
