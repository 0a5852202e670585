import { randomBytes } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { newIccid, newMatchingId } from '../shared/iccid.ts';
import type { AiraloContext } from './context.ts';
import { invalidParameters, notFound } from './errors.ts';
import { createdWithin, field, includes, pageParameters, paginate, text } from './http.ts';
import { sendAiraloWebhook } from './lifecycle.ts';
import { createdOrderBody, listedOrderBody } from './presenters.ts';
import { airaloDateTime, type AiraloOrder } from './state.ts';

const ICCID_PREFIX = '89444654';

interface OrderInput {
  package_id: string;
  quantity: number;
  description: string | null;
  brand_settings_name: string | null;
}

/** Validates an order body as Airalo does; answers 422 and returns undefined when it is wrong. */
function readOrder(ctx: AiraloContext, req: Request, res: Response): OrderInput | undefined {
  const errors: Record<string, string> = {};
  const packageId = text(field(req, 'package_id'));
  const quantityText = text(field(req, 'quantity'));
  const type = text(field(req, 'type'));
  const brand = text(field(req, 'brand_settings_name'));
  if (!packageId) errors.package_id = 'The package id field is required.';
  else {
    const found = ctx.packages.get(packageId);
    if (!found || found.pkg.type !== 'sim') errors.package_id = 'The selected package is invalid.';
  }
  if (quantityText === undefined || quantityText === '') errors.quantity = 'The quantity field is required.';
  else if (!/^-?\d+$/.test(quantityText)) errors.quantity = 'The quantity must be an integer.';
  else if (Number(quantityText) < 1) errors.quantity = 'The quantity must be at least 1.';
  else if (Number(quantityText) > 50) errors.quantity = 'The quantity may not be greater than 50.';
  if (type !== undefined && type !== '' && type !== 'sim') errors.type = 'The selected type is invalid.';
  // The fake has no brand settings configured, so any named brand does not exist.
  if (brand) errors.brand_settings_name = "Brand settings name doesn't exist.";
  if (Object.keys(errors).length) {
    invalidParameters(res, errors);
    return undefined;
  }
  return { package_id: packageId!, quantity: Number(quantityText), description: text(field(req, 'description')) ?? null, brand_settings_name: null };
}

/** Buys `quantity` eSIMs of one package, charging the balance the net price. */
function placeOrder(ctx: AiraloContext, input: OrderInput, requestId?: string): AiraloOrder {
  const now = ctx.clock.now();
  const id = ctx.state.next_order_id++;
  const createdAt = airaloDateTime(now);
  const { pkg } = ctx.packages.get(input.package_id)!;
  const order: AiraloOrder = {
    id,
    code: `${createdAt.slice(0, 10).replace(/-/g, '')}-${String(id).padStart(6, '0')}`,
    created_at: createdAt,
    package_id: input.package_id,
    quantity: input.quantity,
    description: input.description,
    brand_settings_name: input.brand_settings_name,
    status: 'completed',
    iccids: [],
    ...(requestId ? { request_id: requestId } : {}),
  };
  for (let i = 0; i < input.quantity; i++) {
    const iccid = newIccid(ICCID_PREFIX, ctx.settings.iccidDigits, (candidate) => candidate in ctx.state.sims);
    ctx.state.sims[iccid] = {
      id: ctx.state.next_sim_id++,
      iccid,
      created_at: createdAt,
      order_id: id,
      package_id: input.package_id,
      lpa: ctx.settings.smdpAddress,
      matching_id: newMatchingId(),
      used_bytes: 0,
      status: 'NOT_ACTIVE',
      notified: [],
      brand_settings_name: input.brand_settings_name,
    };
    order.iccids.push(iccid);
  }
  ctx.state.balance = Math.round((ctx.state.balance - pkg.net_price * input.quantity) * 100) / 100;
  ctx.state.orders.push(order);
  ctx.recorder.purchase(input.quantity);
  ctx.save();
  return order;
}

/** Airalo's request ids are 25-character nanoids. */
const requestId = () => randomBytes(19).toString('base64url').slice(0, 25);

const like = (value: string | null, needle: string) => (value ?? '').toLowerCase().includes(needle.toLowerCase());

export function orderRoutes(ctx: AiraloContext, router: Router): void {
  router.post('/orders', (req: Request, res: Response) => {
    const input = readOrder(ctx, req, res);
    if (!input) return;
    const order = placeOrder(ctx, input);
    res.json({ data: createdOrderBody(ctx, order), meta: { message: 'success' } });
  });

  router.post('/orders-async', (req: Request, res: Response) => {
    const input = readOrder(ctx, req, res);
    if (!input) return;
    const webhookUrl = text(field(req, 'webhook_url')) ?? ctx.state.notifications.find((n) => n.type === 'async_orders')?.contact_point;
    if (!webhookUrl) {
      res.status(422).json({ reason: 'User is not opted in and no webhook URL provided.' });
      return;
    }
    const id = requestId();
    res.status(202).json({ data: { request_id: id, accepted_at: airaloDateTime(ctx.clock.now()) }, meta: { message: 'success' } });
    // The order is made after the 202 and its details arrive on the webhook: the regular order
    // answer plus `request_id`.
    ctx.timers.after(0, () => {
      const order = placeOrder(ctx, input, id);
      void sendAiraloWebhook(ctx, webhookUrl, { data: { ...createdOrderBody(ctx, order), request_id: id }, meta: { message: 'success' } });
    });
  });

  router.get('/orders', (req: Request, res: Response) => {
    const { limit, page, errors } = pageParameters(req, 25);
    if (Object.keys(errors).length) return invalidParameters(res, errors);
    const q = (name: string) => req.query[`filter[${name}]`] as string | undefined;
    let orders = [...ctx.state.orders].reverse();
    const description = q('description');
    if (description) orders = orders.filter((o) => like(o.description, description));
    const code = q('code');
    if (code) orders = orders.filter((o) => like(o.code, code));
    const iccid = q('iccid');
    if (iccid) orders = orders.filter((o) => o.iccids.some((i) => i.includes(iccid)));
    const status = q('order_status');
    if (status) orders = orders.filter((o) => o.status === status);
    const inRange = createdWithin(q('created_at'));
    orders = orders.filter((o) => inRange(o.created_at));
    const include = includes(req);
    const { items, meta, links } = paginate(ctx, req, orders, limit, page);
    res.json({ data: items.map((o) => listedOrderBody(ctx, o, include)), meta, links });
  });

  router.get('/orders/:order_id', (req: Request, res: Response) => {
    const order = ctx.state.orders.find((o) => String(o.id) === req.params.order_id);
    if (!order) return notFound(res);
    res.json({ data: listedOrderBody(ctx, order, includes(req)), meta: { message: 'success' } });
  });
}
