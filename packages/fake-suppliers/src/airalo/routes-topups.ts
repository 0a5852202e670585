import type { Request, Response, Router } from 'express';
import { convert } from '../shared/currency.ts';
import { dataLabel, packageTitle, type AiraloPackageSpec } from './catalogue.ts';
import type { AiraloContext } from './context.ts';
import { businessError, invalidParameters, notFound } from './errors.ts';
import { field, text } from './http.ts';
import { placedOrderBody } from './presenters.ts';
import type { AiraloSim } from './state.ts';
import { applyTopup, topupOffers } from './topups.ts';

/** The currencies of a top-up package's price lists, in the document's order. */
const TOPUP_CURRENCIES = ['USD', 'EUR', 'GBP', 'AED', 'JPY'];

/** One `data[]` entry of GET /v2/sims/{iccid}/topups (data-only packages: no minutes, no texts). */
function topupPackageBody(pkg: AiraloPackageSpec) {
  return {
    id: pkg.id,
    type: pkg.type,
    price: pkg.price,
    amount: pkg.amount,
    day: pkg.day,
    is_unlimited: pkg.is_unlimited,
    title: packageTitle(pkg),
    data: dataLabel(pkg),
    short_info: "This eSIM doesn't come with a phone number.",
    voice: 0,
    text: 0,
    net_price: pkg.net_price,
    prices: { net_price: convert(pkg.net_price, TOPUP_CURRENCIES), recommended_retail_price: convert(pkg.price, TOPUP_CURRENCIES) },
  };
}

/** The document's code 73: a recycled eSIM "can no longer be used or topped up". */
function refuseRecycled(res: Response, sim: AiraloSim): boolean {
  if (sim.status !== 'RECYCLED') return false;
  businessError(res, 73, `The eSIM with iccid ${sim.iccid} has been recycled. It can no longer be used or topped up.`);
  return true;
}

/** Validates a top-up order as the document's 422 examples show; answers 422 and returns undefined when it is wrong. */
function readTopup(ctx: AiraloContext, req: Request, res: Response): { sim: AiraloSim; pkg: AiraloPackageSpec; description: string } | undefined {
  const errors: Record<string, string> = {};
  const packageId = text(field(req, 'package_id'));
  const iccid = text(field(req, 'iccid'));
  if (!iccid) errors.iccid = 'The iccid field is required.';
  if (!packageId) errors.package_id = 'The package id field is required.';
  const sim = iccid ? ctx.state.sims[iccid] : undefined;
  if (iccid && !sim) errors.iccid = 'The selected iccid is invalid.';
  if (Object.keys(errors).length) return void invalidParameters(res, errors);
  if (refuseRecycled(res, sim!)) return undefined;
  const pkg = topupOffers(ctx, sim!).find((p) => p.id === packageId);
  if (!pkg) return void invalidParameters(res, { package_id: 'invalid topup package' });
  // AIR-22: "Optional" in prose; without one, the document's example shows Airalo's own "Topup (<iccid>)".
  return { sim: sim!, pkg, description: text(field(req, 'description')) || `Topup (${sim!.iccid})` };
}

/** Airalo's top-up section: the packages that can top an eSIM up, and the order that buys one onto it. */
export function topupRoutes(ctx: AiraloContext, router: Router): void {
  router.get('/sims/:iccid/topups', (req: Request, res: Response) => {
    const sim = ctx.state.sims[String(req.params.iccid)];
    if (!sim) return notFound(res);
    if (refuseRecycled(res, sim)) return;
    res.json({ pricing: { model: 'net_pricing', discount_percentage: 0 }, data: topupOffers(ctx, sim).map(topupPackageBody) });
  });

  router.post('/orders/topups', (req: Request, res: Response) => {
    const input = readTopup(ctx, req, res);
    if (!input) return;
    const order = applyTopup(ctx, input.sim, input.pkg, input.description);
    // The order, without eSIMs (the eSIM is the one named).
    res.json({ data: placedOrderBody(ctx, order), meta: { message: 'success' } });
  });
}
