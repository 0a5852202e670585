import { randomInt, randomUUID } from 'node:crypto';
import { isPlainObject } from '../shared/openapi/validator.ts';
import { newIccid, newMatchingId } from '../shared/iccid.ts';
import type { EsimGoBundleSpec } from './catalogue.ts';
import { bundleOf, type EsimGoContext } from './context.ts';
import { recordHistory } from './lifecycle.ts';
import { round } from './presenters.ts';
import type { EsimGoAssignment, EsimGoEsim, EsimGoOrder, EsimGoOrderLine } from './state.ts';

const ICCID_PREFIX = '894453';

interface LineInput {
  bundle: EsimGoBundleSpec;
  quantity: number;
  iccids: string[];
  allowReassign: boolean;
}

export interface OrderInput {
  type: 'validate' | 'transaction';
  assign: boolean;
  lines: LineInput[];
}

/** EG-10: the schema requires nothing; the prose requires `type`, and an item and quantity per line. */
export function readOrder(ctx: EsimGoContext, body: unknown): OrderInput | string {
  if (!isPlainObject(body)) return 'Request body must be a JSON object';
  if (body.type !== 'validate' && body.type !== 'transaction') return "type must be 'validate' or 'transaction'";
  const assign = body.assign === true;
  if (!Array.isArray(body.order) || body.order.length === 0) return 'order must list at least one item';
  const lines: LineInput[] = [];
  for (const raw of body.order as unknown[]) {
    if (!isPlainObject(raw)) return 'each order item must be an object';
    if (raw.type !== 'bundle') return "order item type must be 'bundle'";
    const bundle = typeof raw.item === 'string' ? bundleOf(ctx, raw.item) : undefined;
    if (!bundle) return `Bundle not found: ${String(raw.item)} (bundle names are case sensitive)`;
    if (!Number.isInteger(raw.quantity) || (raw.quantity as number) < 1) return 'quantity must be a positive integer';
    const iccids = Array.isArray(raw.iccids) ? raw.iccids.map(String) : [];
    if (iccids.length && !assign) return 'eSIM ICCIDs can only be specified if assign is set to true';
    if (iccids.length && iccids.length !== raw.quantity) return 'quantity must match the number of ICCIDs';
    const foreign = iccids.find((i) => !ctx.state.esims[i]);
    if (foreign) return `ICCID ${foreign} is not accessible by the user`;
    lines.push({ bundle, quantity: raw.quantity as number, iccids, allowReassign: raw.allowReassign === true });
  }
  return { type: body.type, assign, lines };
}

export const orderTotal = (input: OrderInput) => round(input.lines.reduce((sum, l) => sum + l.bundle.price * l.quantity, 0));

function newAssignment(ctx: EsimGoContext, bundle: EsimGoBundleSpec, reference: string): EsimGoAssignment {
  const bytes = bundle.dataAmount * 1_000_000;
  return {
    id: String(ctx.state.next_assignment_id++),
    bundle: bundle.name,
    reference,
    assigned_at: ctx.clock.now(),
    initial_bytes: bytes,
    remaining_bytes: bytes,
    state: 'queued',
    unlimited: bundle.unlimited,
    price: bundle.price,
    notified: [],
    first_use_sent: false,
  };
}

/** A new eSIM from eSIM Go's pool, Released and waiting to be installed. */
export function newEsim(ctx: EsimGoContext): EsimGoEsim {
  const iccid = newIccid(ICCID_PREFIX, ctx.settings.iccidDigits, (candidate) => candidate in ctx.state.esims);
  const esim: EsimGoEsim = {
    iccid,
    matching_id: newMatchingId(),
    smdp_address: ctx.settings.smdpAddress,
    pin: String(randomInt(10_000)).padStart(4, '0'),
    puk: String(randomInt(100_000_000)).padStart(8, '0'),
    profile_status: 'Released',
    customer_ref: '',
    assigned_at: ctx.clock.now(),
    history: [],
    assignments: [],
  };
  ctx.state.esims[iccid] = esim;
  return esim;
}

/** Puts a bundle on an eSIM (new or existing) under `reference`. */
export function applyBundle(ctx: EsimGoContext, esim: EsimGoEsim, bundle: EsimGoBundleSpec, reference: string): void {
  esim.assignments.push(newAssignment(ctx, bundle, `${reference}-${esim.assignments.length}`));
  recordHistory(ctx, esim, 'Bundle Applied', bundle.name);
}

/**
 * Makes a transaction order: charges the balance, makes and assigns the eSIMs (or fills the
 * inventory) and counts the purchase. Undefined when the balance no longer covers it (an order
 * that was still processing while the balance was spent).
 */
export function makeOrder(ctx: EsimGoContext, input: OrderInput, sourceIp: string): EsimGoOrder | undefined {
  const total = orderTotal(input);
  if (total > ctx.state.organisation.balance) return undefined;
  const now = ctx.clock.now();
  const reference = randomUUID();
  const lines: EsimGoOrderLine[] = [];
  let esimCount = 0;
  for (const line of input.lines) {
    const iccids: string[] = [];
    if (!input.assign) {
      ctx.state.inventory.push({
        id: ctx.state.next_usage_id++,
        bundle: line.bundle.name,
        total: line.quantity,
        remaining: line.quantity,
        bought_at: now,
        price: line.bundle.price,
      });
    } else {
      for (let i = 0; i < line.quantity; i++) {
        const esim = line.iccids[i] ? ctx.state.esims[line.iccids[i]!]! : newEsim(ctx);
        applyBundle(ctx, esim, line.bundle, reference);
        iccids.push(esim.iccid);
      }
    }
    esimCount += iccids.length;
    lines.push({ item: line.bundle.name, quantity: line.quantity, iccids, price_per_unit: line.bundle.price, allow_reassign: line.allowReassign });
  }
  const order: EsimGoOrder = { reference, created_at: now, assigned: input.assign, lines, total, source_ip: sourceIp };
  ctx.state.orders.push(order);
  ctx.state.organisation.balance = round(ctx.state.organisation.balance - total);
  ctx.recorder.purchase(esimCount);
  ctx.save();
  return order;
}
