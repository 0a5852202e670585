import type { Express, RequestHandler } from 'express';
import { forwardToService } from './forward.ts';
import type { InternalTarget } from './internal-put.ts';

/**
 * The supplier releases of unrecorded live orders belong to inventory (its worker terminates
 * the profiles): the admin API passes listing them and retrying one on to inventory's
 * internal routes, query string and all, and inventory validates.
 */
export function mountSupplierReleaseRoutes(app: Express, inventory: InternalTarget): void {
  const forward =
    (method: 'GET' | 'POST', pathOf: (params: Record<string, string>, search: string) => string): RequestHandler =>
    async (req, res, next) => {
      try {
        const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
        const target = { ...inventory, service: 'inventory', requestId: String(res.locals.requestId) };
        res.status(200).json(await forwardToService(target, method, pathOf(req.params as Record<string, string>, search)));
      } catch (error) {
        next(error);
      }
    };

  app.get('/admin/supplier-releases', forward('GET', (_params, search) => `/internal/supplier-releases${search}`));
  app.post(
    '/admin/supplier-releases/:releaseId/retry',
    forward('POST', (params) => `/internal/supplier-releases/${encodeURIComponent(params.releaseId ?? '')}/retry`),
  );
}
