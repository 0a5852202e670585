import type { Request, Response, Router } from 'express';
import { asText } from '../shared/text.ts';
import { countryEntry, networksOf } from './catalogue.ts';
import { bundleOf, type EsimGoContext } from './context.ts';
import { badRequest } from './errors.ts';
import { catalogueBundle } from './presenters.ts';

const csv = (value: unknown) =>
  (asText(value) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** "Wildcard search for description": `*` matches anything, otherwise a substring. */
const wildcard = (pattern: string) =>
  new RegExp(
    pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*'),
    'i',
  );

export function catalogueRoutes(ctx: EsimGoContext, router: Router): void {
  router.get('/catalogue', (req: Request, res: Response) => {
    let bundles = [...ctx.catalogue];
    const countries = csv(req.query.countries).map((c) => c.toUpperCase());
    if (countries.length) bundles = bundles.filter((b) => b.countries.some((c) => countries.includes(c)));
    const region = req.query.region as string | undefined;
    if (region) bundles = bundles.filter((b) => b.countries.some((c) => countryEntry(c).region.toLowerCase() === region.toLowerCase()));
    const group = req.query.group as string | undefined;
    if (group) bundles = bundles.filter((b) => b.groups.includes(group));
    const description = req.query.description as string | undefined;
    if (description) bundles = bundles.filter((b) => wildcard(description).test(b.description));
    const orderBy = (req.query.orderBy as string | undefined) ?? 'name';
    const key = (b: (typeof bundles)[number]) =>
      orderBy === 'duration' ? b.duration : orderBy === 'dataAmount' ? b.dataAmount : orderBy === 'price' ? b.price : b.name;
    bundles.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
    if (req.query.direction === 'desc') bundles.reverse();
    const perPage = req.query.perPage === undefined ? bundles.length || 1 : Number(req.query.perPage);
    const page = req.query.page === undefined ? 1 : Number(req.query.page);
    if (!Number.isInteger(perPage) || perPage < 1 || !Number.isInteger(page) || page < 1) return badRequest(res, 'page and perPage must be positive integers');
    // EG-5 (GET /catalogue): a bare array, as the document's schema says.
    res.json(bundles.slice((page - 1) * perPage, page * perPage).map(catalogueBundle));
  });

  router.get('/catalogue/bundle/:name', (req: Request, res: Response) => {
    const bundle = bundleOf(ctx, String(req.params.name));
    if (!bundle) return badRequest(res, `Bundle ${String(req.params.name)} not found`);
    const { groups: _groups, ...rest } = catalogueBundle(bundle);
    res.json(rest);
  });

  router.get('/networks', (req: Request, res: Response) => {
    const isos = req.query.returnAll === 'true' ? [...new Set(ctx.catalogue.flatMap((b) => b.countries))] : csv(req.query.isos).map((c) => c.toUpperCase());
    const names = csv(req.query.countries).map((c) => c.toLowerCase());
    const all = [...new Set(ctx.catalogue.flatMap((b) => b.countries))];
    const wanted = [...new Set([...isos, ...all.filter((iso) => names.includes(countryEntry(iso).name.toLowerCase()))])];
    if (wanted.length === 0) return badRequest(res, 'Provide countries, isos or returnAll=true');
    res.json({ countryNetworks: wanted.map((iso) => ({ name: iso, networks: networksOf(iso) })) });
  });
}
