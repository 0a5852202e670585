/**
 * Fixed conversion rates from USD for the multi-currency price lists (Airalo publishes net and
 * retail prices in these currencies, converted daily); whole-unit currencies are rounded to units.
 */
const RATES: Record<string, number> = {
  USD: 1,
  EUR: 0.86,
  GBP: 0.75,
  AUD: 1.42,
  BRL: 5.1,
  CAD: 1.39,
  AED: 3.67,
  INR: 92.28,
  IDR: 17019,
  ILS: 3.09,
  JPY: 158.7,
  KWD: 0.31,
  MYR: 3.98,
  MXN: 17.45,
  SGD: 1.27,
  ZAR: 16.43,
  KRW: 1478.7,
  VND: 26334,
};
const WHOLE_UNITS = new Set(['IDR', 'JPY', 'KRW', 'VND']);

/** The price in each currency, in the order the vendor lists them. */
export function convert(usd: number, currencies: readonly string[]): Record<string, number> {
  return Object.fromEntries(
    currencies.map((c) => {
      const value = usd * RATES[c]!;
      return [c, WHOLE_UNITS.has(c) ? Math.round(value) : c === 'KWD' ? Math.round(value * 1000) / 1000 : Math.round(value * 100) / 100];
    }),
  );
}
