import type { SupplierBundle } from '../port.ts';
import { centsOf, isoCountries, regionOf, usableBundleName, type VendorCatalogue } from '../vendor-catalogue.ts';
import { AIRALO_LIMITS, AIRALO_MB, airaloCost, packagesAnswerSchema } from './api.ts';
import { read, type AiraloSession } from './session.ts';

/** Airalo's SIM packages, page by page, as our bundles with their cost (`airaloCost`, USD whatever the account's currency). */
export async function loadAiraloCatalogue(session: AiraloSession): Promise<VendorCatalogue> {
  const bundles: SupplierBundle[] = [];
  const costs = new Map<string, number>();
  for (let page = 1, last = 1; page <= last; page += 1) {
    const answer = await session.call({
      operation: 'list_packages',
      method: 'GET',
      path: '/packages',
      query: { limit: 100, page },
      idempotent: true,
      limits: [{ key: 'packages', rule: AIRALO_LIMITS.packages }],
    });
    const { pricing, data, meta } = read(packagesAnswerSchema, answer, 'airalo packages');
    last = Math.min(meta?.last_page ?? 1, 100);
    for (const destination of data) {
      for (const operator of destination.operators) {
        const countries = isoCountries(operator.countries.length ? operator.countries.map((c) => c.country_code) : [destination.country_code ?? '']);
        for (const pkg of operator.packages) {
          if (pkg.type !== 'sim' || costs.has(pkg.id) || !usableBundleName(pkg.id) || countries.length === 0 || pkg.day < 1) continue;
          bundles.push({
            name: pkg.id,
            description: `${pkg.title ?? pkg.id} in ${destination.title}.`,
            data_mb: pkg.is_unlimited ? null : Math.round(pkg.amount),
            unlimited: pkg.is_unlimited,
            duration_days: pkg.day,
            countries,
            region: regionOf(countries),
            retired: false,
            // Record 0230: Airalo's packages start at first use unless the operator says otherwise.
            validity_start: /purchase/i.test(operator.activation_policy ?? '') ? 'purchase' : 'first_use',
            install_window_days: operator.install_window_days ?? null,
            bytes_per_mb: AIRALO_MB,
          });
          costs.set(pkg.id, centsOf(airaloCost(pkg, pricing)));
        }
      }
    }
  }
  return { bundles, costs, currency: 'USD' };
}
