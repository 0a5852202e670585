import type { AiraloPackageSpec } from './catalogue.ts';
import type { AiraloContext } from './context.ts';
import { airaloDateTime, type AiraloOrder, type AiraloSim } from './state.ts';

const MB = 1024 * 1024;
const DAY = 86_400_000;

/**
 * Top-ups as the fake keeps them (vendor/airalo/SOURCE.md, AIR-21/AIR-22). A top-up is a package added
 * to an eSIM's package history; the usage page reports "the total data … for a specific eSIM", so the
 * eSIM's data is its own package's and every top-up's, used in the order they were bought.
 */

/** The packages on the eSIM, in the order their data is used: its own, then each top-up. */
export function simPackages(ctx: AiraloContext, sim: AiraloSim): AiraloPackageSpec[] {
  return [sim.package_id, ...(sim.topups ?? []).map((t) => t.package_id)].map((id) => ctx.packages.get(id)!.pkg);
}

/** Whether the eSIM has no data limit (its own package is unlimited; a top-up is of the same kind). */
export const isUnlimitedSim = (ctx: AiraloContext, sim: AiraloSim) => ctx.packages.get(sim.package_id)!.pkg.is_unlimited;

/** The eSIM's data in bytes: every package's amount (MB, 1 GB = 1024 MB). */
export const capacityBytes = (ctx: AiraloContext, sim: AiraloSim) => simPackages(ctx, sim).reduce((sum, pkg) => sum + pkg.amount * MB, 0);

/**
 * The packages that can top the eSIM up: the top-up packages of its operator of the same kind
 * (unlimited or not). None for a recycled eSIM (the route answers code 73 first).
 */
export function topupOffers(ctx: AiraloContext, sim: AiraloSim): AiraloPackageSpec[] {
  const { operator, pkg } = ctx.packages.get(sim.package_id)!;
  return operator.packages.filter((p) => p.type === 'topup' && p.is_unlimited === pkg.is_unlimited);
}

/**
 * Buys `pkg` onto the eSIM: an order of type `topup` (listed by GET /v2/orders, found by its
 * description), the package added to the eSIM's history, the balance charged its net price. An eSIM
 * whose data or validity had run out is active again (the top-up grace window of the packages page:
 * "after each topup this period restarts"); validity runs on by the package's days from the later of
 * its end and now, and the low-data notices may be sent again.
 */
export function applyTopup(ctx: AiraloContext, sim: AiraloSim, pkg: AiraloPackageSpec, description: string): AiraloOrder {
  const now = ctx.clock.now();
  const id = ctx.state.next_order_id++;
  const createdAt = airaloDateTime(now);
  const order: AiraloOrder = {
    id,
    code: `${createdAt.slice(0, 10).replace(/-/g, '')}-${String(id).padStart(6, '0')}`,
    created_at: createdAt,
    package_id: pkg.id,
    quantity: 1,
    description,
    brand_settings_name: null,
    status: 'completed',
    iccids: [sim.iccid],
  };
  (sim.topups ??= []).push({ id: ctx.state.next_sim_id++, package_id: pkg.id, order_id: id, created_at: createdAt, added_at: now });
  if (sim.expires_at !== undefined) sim.expires_at = Math.max(sim.expires_at, now) + pkg.day * DAY;
  if (sim.status === 'FINISHED' || sim.status === 'EXPIRED') {
    sim.status = 'ACTIVE';
    sim.finished_at = undefined;
  }
  sim.notified = [];
  ctx.usageCache.delete(sim.iccid);
  ctx.state.balance = Math.round((ctx.state.balance - pkg.net_price) * 100) / 100;
  ctx.state.orders.push(order);
  ctx.recorder.purchase(0);
  ctx.save();
  return order;
}

/** The validity an eSIM gets at its first use: every package's days (top-ups bought before it was used queue behind its own). */
export const validityDays = (ctx: AiraloContext, sim: AiraloSim) => simPackages(ctx, sim).reduce((sum, pkg) => sum + pkg.day, 0);
