import { ApiError, SERVICE_VERSIONS, contract, errorCodeItem, errorCodeItems, eventTypeItems, isErrorCode } from '@connectivity/contracts';
import { getCaller, tsRestOptions, type CursorCodec } from '@connectivity/platform';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import type { Express } from 'express';
import type { Knex } from 'knex';
import { cataloguePage } from '../domain/catalogue-page.ts';
import { listApiKeys } from '../use-cases/list-api-keys.ts';
import { listRequestLogs } from '../use-cases/list-request-logs.ts';
import { servedVersion } from '../edge/hand-off.ts';

export interface MetaDeps {
  knex: Knex;
  cursors: CursorCodec;
  /** Older requests are never listed, whether or not the purge has reached them. */
  requestLogRetentionMs: number;
}

// The spec needs no key: it is answered before the edge (see `docs.ts`).
const { getOpenApiDocument: _openApi, ...authenticatedMeta } = contract.meta;

/** The public routes the gateway answers itself (route metadata `service: 'gateway'`), after every check of the edge. */
export const gatewayRoutes = { ...authenticatedMeta, ...contract.apiKeys, ...contract.requestLogs };

const s = initServer();

export function metaRouter(deps: MetaDeps) {
  return s.router(gatewayRoutes, {
    getVersion: ({ res }) => Promise.resolve({ status: 200, body: { object: 'version', version: servedVersion(res), serves: [...SERVICE_VERSIONS] } }),
    listEventTypes: ({ query, res }) =>
      Promise.resolve({ status: 200, body: cataloguePage(eventTypeItems(), 'event_types', getCaller(res), query, deps.cursors) }),
    listErrorCodes: ({ query, res }) =>
      Promise.resolve({ status: 200, body: cataloguePage(errorCodeItems(), 'error_codes', getCaller(res), query, deps.cursors) }),
    getErrorCode: ({ params }) => {
      if (!isErrorCode(params.code)) {
        throw new ApiError('resource_not_found', { param: 'code', message: `No error code \`${params.code}\`; see GET /v1/error_codes.` });
      }
      return Promise.resolve({ status: 200, body: errorCodeItem(params.code) });
    },
    listApiKeys: async ({ query, res }) => ({ status: 200, body: await listApiKeys(deps, getCaller(res), query) }),
    listRequestLogs: async ({ query, res }) => ({
      status: 200,
      body: await listRequestLogs({ ...deps, retentionMs: deps.requestLogRetentionMs }, getCaller(res), query),
    }),
  });
}

/**
 * Mounts the gateway's own routes; only requests the edge passed on (`next()`) reach them. The
 * edge has named the request's span and route already, so ts-rest's route naming is left out.
 */
export function mountMetaRoutes(app: Express, deps: MetaDeps): void {
  createExpressEndpoints(gatewayRoutes, metaRouter(deps), app, { ...tsRestOptions, globalMiddleware: [] });
}
