import { DECIMAL_MB } from '../../../domain/bundle.ts';
import type { SupplierBundle } from '../port.ts';
import { centsOf, isoCountries, regionOf, usableBundleName, type VendorCatalogue } from '../vendor-catalogue.ts';
import { catalogueAnswerSchema, organisationAnswerSchema } from './api.ts';
import { read, type EsimGoSession } from './session.ts';

const PAGE = 100;

/** eSIM Go's catalogue, page by page, as our bundles with their cost in the organisation's currency. */
export async function loadEsimGoCatalogue(session: EsimGoSession): Promise<VendorCatalogue> {
  const organisation = read(
    organisationAnswerSchema,
    await session.call({ operation: 'organisation', method: 'GET', path: '/organisation', idempotent: true }),
    'esim-go organisation',
  );
  const bundles: SupplierBundle[] = [];
  const costs = new Map<string, number>();
  for (let page = 1; page <= 100; page += 1) {
    const answer = await session.call({ operation: 'list_catalogue', method: 'GET', path: '/catalogue', query: { page, perPage: PAGE }, idempotent: true });
    const listed = read(catalogueAnswerSchema, answer, 'esim-go catalogue');
    for (const bundle of listed) {
      const countries = isoCountries(bundle.countries.map((c) => c.iso));
      if (costs.has(bundle.name) || !usableBundleName(bundle.name) || countries.length === 0 || bundle.duration < 1) continue;
      const unlimited = bundle.unlimited === true;
      bundles.push({
        name: bundle.name,
        description: bundle.description ?? bundle.name,
        data_mb: unlimited ? null : Math.round(bundle.dataAmount),
        unlimited,
        duration_days: bundle.duration,
        countries,
        region: regionOf(countries),
        retired: false,
        // Record 0230: an eSIM Go bundle starts at its first data use (FirstUse); no install deadline.
        validity_start: 'first_use',
        install_window_days: null,
        // Record 0231: eSIM Go counts 1 GB as 1000 MB, its quantities are bytes (1 GB = 10^9).
        bytes_per_mb: DECIMAL_MB,
      });
      costs.set(bundle.name, centsOf(bundle.price));
    }
    if (listed.length < PAGE) break;
  }
  return { bundles, costs, currency: organisation.currency.toUpperCase() };
}
