import { describe, expect, it } from 'vitest';
import { airaloCost, packagesAnswerSchema } from '../src/clients/suppliers/airalo/api.ts';

/**
 * What an Airalo package costs us under the vendor's two pricing models (the "List Packages" and
 * "(Discount pricing) List Packages" answers of its document): a package is never costed at 0 for want
 * of `net_price`, which would sell it at any price the rule allows.
 */
describe('airaloCost', () => {
  it('is the net price under net pricing', () => {
    expect(airaloCost({ price: 4.5, net_price: 2.25 }, { model: 'net_pricing', discount_percentage: 0 })).toBe(2.25);
  });

  it('is the list price less the discount under discount pricing, where net_price is absent or null', () => {
    const pricing = { model: 'discount_pricing', discount_percentage: 10 };
    expect(airaloCost({ price: 4 }, pricing)).toBeCloseTo(3.6);
    expect(airaloCost({ price: 4, net_price: null }, pricing)).toBeCloseTo(3.6);
  });

  it('reads a discount-pricing page (no net_price on its packages), as the vendor document shows it', () => {
    const page = packagesAnswerSchema.parse({
      pricing: { model: 'discount_pricing', discount_percentage: 10 },
      data: [
        {
          slug: 'france',
          country_code: 'FR',
          title: 'France',
          operators: [
            { countries: [{ country_code: 'FR' }], packages: [{ id: 'elan-7days-1gb', type: 'sim', price: 4.5, amount: 1024, day: 7, is_unlimited: false }] },
          ],
        },
      ],
    });
    const pkg = page.data[0]!.operators[0]!.packages[0]!;
    expect(airaloCost(pkg, page.pricing)).toBeCloseTo(4.05);
  });
});
