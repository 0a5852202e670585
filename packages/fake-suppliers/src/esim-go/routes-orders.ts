import type { Request, Response, Router } from 'express';
import { takeProcessing } from '../shared/faults.ts';
import type { EsimGoContext } from './context.ts';
import { badRequest, notAccessible, stillProcessing } from './errors.ts';
import { isoTime } from './lifecycle.ts';
import { makeOrder, orderTotal, readOrder } from './orders.ts';
import { orderBody, round } from './presenters.ts';

export function orderRoutes(ctx: EsimGoContext, router: Router): void {
  router.post('/orders', (req: Request, res: Response) => {
    const input = readOrder(ctx, req.body);
    if (typeof input === 'string') return badRequest(res, input);
    const total = orderTotal(input);
    if (input.type === 'validate') {
      res.json({
        order: input.lines.map((l) => ({
          type: 'bundle',
          item: l.bundle.name,
          quantity: l.quantity,
          subTotal: round(l.bundle.price * l.quantity),
          pricePerUnit: l.bundle.price,
          AllowReassign: l.allowReassign,
        })),
        total,
        valid: true,
        currency: ctx.state.organisation.currency,
        createdDate: isoTime(ctx.clock.now()),
        assigned: input.assign,
      });
      return;
    }
    if (total > ctx.state.organisation.balance) return badRequest(res, 'Insufficient balance to complete the order');
    const sourceIp = req.ip ?? '127.0.0.1';
    const processing = takeProcessing(ctx.faults);
    if (processing) {
      // eSIM Go has taken the order and answers before it is done: it is made later, or never.
      if (processing.completeAfterMs === 0) makeOrder(ctx, input, sourceIp);
      else if (processing.completeAfterMs > 0) ctx.timers.after(processing.completeAfterMs, () => makeOrder(ctx, input, sourceIp));
      return stillProcessing(res, processing.retryAfterSeconds);
    }
    res.json(orderBody(ctx, makeOrder(ctx, input, sourceIp)!, true));
  });

  router.get('/orders', (req: Request, res: Response) => {
    const limit = req.query.limit === undefined ? 10 : Number(req.query.limit);
    const page = req.query.page === undefined ? 1 : Number(req.query.page);
    if (!Number.isInteger(limit) || limit < 1 || !Number.isInteger(page) || page < 1) return badRequest(res, 'page and limit must be positive integers');
    let orders = [...ctx.state.orders].reverse();
    const bounds = [req.query.createdAt].flat().filter((v): v is string => typeof v === 'string');
    for (const bound of bounds) {
      const [op, value] = [bound.slice(0, 4), Date.parse(bound.slice(4))];
      if ((op !== 'gte:' && op !== 'lte:') || Number.isNaN(value)) return badRequest(res, "createdAt must be 'gte:<date-time>' or 'lte:<date-time>'");
      orders = orders.filter((o) => (op === 'gte:' ? o.created_at >= value : o.created_at <= value));
    }
    // EG-5: the list the prose promises, not the single object of the 200 schema.
    res.json(orders.slice((page - 1) * limit, page * limit).map((o) => orderBody(ctx, o, req.query.includeIccids === 'true')));
  });

  router.get('/orders/:orderReference', (req: Request, res: Response) => {
    const order = ctx.state.orders.find((o) => o.reference === req.params.orderReference);
    if (!order) return notAccessible(res, 'Order');
    res.json(orderBody(ctx, order, true));
  });
}
