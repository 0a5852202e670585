import { ApiError, adminContract, buildAdminOpenApiDocument } from '@connectivity/contracts';
import {
  accessLog,
  defaultResponseHeaders,
  errorHandler,
  metricsHandler,
  requestId,
  requireMetricsToken,
  tsRestOptions,
  type Logger,
} from '@connectivity/platform';
import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import { requireAdminToken } from './admin-auth.ts';
import { adminRouter, type AdminRouteDeps } from './admin.ts';

export interface AdminDeps extends AdminRouteDeps {
  logger: Logger;
  adminToken: string;
  /** `/metrics` asks for it when set (Prometheus' token, never the admin token). */
  metricsToken?: string | undefined;
  baseUrl: string;
}

/**
 * The operator admin API (used by `pnpm cli`): accounts and keys, which are not part of the
 * public API, plus verification and balance, passed on to inventory, and the live-ordering
 * switch, passed on to catalogue, and the supplier releases, passed on to inventory. It has its
 * own listener, on the loopback interface by default, and takes only the admin token. Its routes
 * come from the admin contract; bad input is the error object, as on the public API.
 */
export function createAdminApp(deps: AdminDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId({ trustHeader: false }));
  app.use(accessLog(deps.logger));
  app.use(defaultResponseHeaders);
  // Prometheus scrapes the gateway here, not on the public listener, with its own token; nothing
  // else skips the admin token.
  app.get('/metrics', requireMetricsToken(deps.metricsToken), (req, res) => metricsHandler(req, res));
  app.use(requireAdminToken(deps.adminToken));
  app.use(express.json({ limit: '64kb', strict: false }));

  let openApi: unknown;
  app.get('/admin/openapi.json', (_req, res) => {
    openApi ??= buildAdminOpenApiDocument();
    res.json(openApi);
  });
  createExpressEndpoints(adminContract, adminRouter(deps), app, tsRestOptions);

  app.use((req, _res, next) => next(new ApiError('no_such_route', { message: `No admin route ${req.method} ${req.path}.` })));
  app.use(errorHandler({ baseUrl: deps.baseUrl, logger: deps.logger }));
  return app;
}
