/**
 * The retail price of a live bundle from the supplier's cost to us: the cost plus the
 * margin, rounded up to the next whole dollar less one cent (x.99), the way consumer eSIM
 * prices are shown. Rounding up never sells below cost plus margin.
 */
export function retailPriceCents(costCents: number, marginPercent: number): number {
  if (!Number.isInteger(costCents) || costCents < 0) throw new RangeError('a cost is a whole number of cents');
  if (!(marginPercent >= 0)) throw new RangeError('a margin is a percentage of at least 0');
  const withMargin = Math.ceil((costCents * (100 + marginPercent)) / 100);
  return Math.max(99, Math.ceil((withMargin + 1) / 100) * 100 - 1);
}
