import type { Request, Response, Router } from 'express';
import type { AiraloContext } from './context.ts';
import { invalidParameters, notFound } from './errors.ts';
import { createdWithin, field, includes, pageParameters, paginate, text, withinLimit } from './http.ts';
import { instructionsBody, packageHistory, simBody, usageBody } from './presenters.ts';
import type { AiraloSim } from './state.ts';

/** "only eSIM orders made via the API are retrievable": every eSIM this fake sold. */
function simFor(ctx: AiraloContext, req: Request, res: Response, param: string): AiraloSim | undefined {
  const sim = ctx.state.sims[String(req.params[param])];
  if (!sim) notFound(res);
  return sim;
}

/** The usage answer as Airalo serves it: made once, then the same answer until the cache runs out. */
function cachedUsage(ctx: AiraloContext, sim: AiraloSim): unknown {
  const now = ctx.clock.now();
  const held = ctx.usageCache.get(sim.iccid);
  if (held && now - held.at < ctx.settings.usageCacheMs) return held.body;
  const body = usageBody(ctx, sim);
  if (ctx.settings.usageCacheMs > 0) ctx.usageCache.set(sim.iccid, { at: now, body });
  return body;
}

export function simRoutes(ctx: AiraloContext, router: Router): void {
  router.get('/sims', (req: Request, res: Response) => {
    const { limit, page, errors } = pageParameters(req, 25);
    if (Object.keys(errors).length) return invalidParameters(res, errors);
    let sims = Object.values(ctx.state.sims).sort((a, b) => b.id - a.id);
    const iccid = req.query['filter[iccid]'] as string | undefined;
    if (iccid) sims = sims.filter((s) => s.iccid.includes(iccid));
    const inRange = createdWithin(req.query['filter[created_at]'] as string | undefined);
    sims = sims.filter((s) => inRange(s.created_at));
    const include = includes(req);
    const { items, meta, links } = paginate(ctx, req, sims, limit, page);
    res.json({ data: items.map((s) => simBody(ctx, s, include)), links, meta });
  });

  router.get('/sims/:sim_iccid', (req: Request, res: Response) => {
    const sim = simFor(ctx, req, res, 'sim_iccid');
    if (sim) res.json({ data: simBody(ctx, sim, includes(req)), meta: { message: 'success' } });
  });

  router.get('/sims/:sim_iccid/usage', (req: Request, res: Response) => {
    const iccid = String(req.params.sim_iccid);
    if (!withinLimit(ctx, res, `usage:${iccid}`, ctx.settings.rateLimits.usagePerIccid)) return;
    if (!withinLimit(ctx, res, `usage-client:${String(res.locals.clientId)}`, ctx.settings.rateLimits.usagePerClient)) return;
    const sim = simFor(ctx, req, res, 'sim_iccid');
    if (sim) res.json({ data: cachedUsage(ctx, sim), meta: { message: 'success' } });
  });

  router.get('/sims/:iccid/packages', (req: Request, res: Response) => {
    if (!withinLimit(ctx, res, `history:${String(req.params.iccid)}`, ctx.settings.rateLimits.packageHistory)) return;
    const sim = simFor(ctx, req, res, 'iccid');
    if (sim) res.json({ pricing: { model: 'net_pricing', discount_percentage: 0 }, data: packageHistory(ctx, sim) });
  });

  router.get('/sims/:sim_iccid/instructions', (req: Request, res: Response) => {
    const sim = simFor(ctx, req, res, 'sim_iccid');
    const language =
      String(req.headers['accept-language'] ?? 'en')
        .split(',')[0]!
        .trim() || 'en';
    if (sim) res.json({ data: instructionsBody(sim, language), meta: { message: 'success' } });
  });

  router.put('/sims/:sim_iccid/brand', (req: Request, res: Response) => {
    const sim = simFor(ctx, req, res, 'sim_iccid');
    if (!sim) return;
    const brand = text(field(req, 'brand_settings_name'));
    if (brand) return invalidParameters(res, { brand_settings_name: "Brand settings name doesn't exist." });
    sim.brand_settings_name = null;
    ctx.save();
    res.json({ data: { brand_settings_name: sim.brand_settings_name }, meta: { message: 'success' } });
  });
}
