import type { Request, Response, Router } from 'express';
import type { AiraloPackageSpec } from './catalogue.ts';
import type { AiraloContext } from './context.ts';
import { invalidParameters } from './errors.ts';
import { pageParameters, paginate, withinLimit } from './http.ts';
import { destinationBody } from './presenters.ts';

/** GET /v2/packages: filters, include=topup, limit/page (no limit: the whole catalogue on one page). */
export function packagesRoute(ctx: AiraloContext, router: Router): void {
  router.get('/packages', (req: Request, res: Response) => {
    if (!withinLimit(ctx, res, `packages:${String(res.locals.accessToken)}`, ctx.settings.rateLimits.packages)) return;
    const type = req.query['filter[type]'] as string | undefined;
    const country = (req.query['filter[country]'] as string | undefined)?.toUpperCase();
    const errors: Record<string, string> = {};
    if (type !== undefined && type !== 'local' && type !== 'global') errors['filter.type'] = 'The selected filter.type is invalid.';
    const { limit, page, errors: pageErrors } = pageParameters(req, Number.MAX_SAFE_INTEGER);
    Object.assign(errors, pageErrors);
    if (Object.keys(errors).length) return invalidParameters(res, errors);
    const withTopups = req.query.include === 'topup';
    const keep = (pkg: AiraloPackageSpec) => pkg.type === 'sim' || withTopups;
    const destinations = ctx.catalogue
      .filter((d) => (type === 'local' ? d.country_code !== '' : type === 'global' ? d.country_code === '' : true))
      .filter((d) => (country ? d.country_code === country : true))
      .filter((d) => d.operators.some((o) => o.packages.some(keep)));
    const pageLimit = limit === Number.MAX_SAFE_INTEGER ? Math.max(1, destinations.length) : limit;
    const { items, meta, links } = paginate(ctx, req, destinations, pageLimit, page);
    res.json({ pricing: { model: 'net_pricing', discount_percentage: 0 }, data: items.map((d) => destinationBody(d, keep)), links, meta });
  });
}
