import type { Request, Response, Router } from 'express';
import type { AiraloContext } from './context.ts';
import { invalidParameters, invalidRequest, notFound } from './errors.ts';
import { field, text, withinLimit } from './http.ts';
import { airaloDateTime, type AiraloNotification } from './state.ts';

/** AIR-14: the refund reasons the vendor page lists. */
export const AIRALO_REFUND_REASONS = [
  'INSTALLATION_FAILURE',
  'NO_COVERAGE',
  'APN_FAILURE',
  'TRIP_CANCELLATION',
  'INTERMITTENT_CONNECTION',
  'BLOCKED_NETWORK',
  'CHANGE_OF_PLAN',
  'DELETED_ESIM',
  'EARLY_EXPIRY',
  'HOTSPOT_NOT_WORKING',
  'IMSI_CHANGE',
  'INCOMPATIBLE_DEVICE',
  'LOCKED_DEVICE',
  'NO_VOICE_TEXT_SERVICES',
  'OVERCHARGED',
  'SLOW_SPEED',
  'TOP_UP_PACKAGE_FAILURE',
  'UNKNOWN_CHARGES',
  'WRONG_PURCHASE',
  'UNABLE_TO_ACCESS_APPS',
  'SERVICE_DEGRADATION',
  'QR_ISSUE_PARTNERS',
  'OTHERS',
];

const WEBHOOK_TYPES = ['async_orders', 'webhook_low_data', 'webhook_credit_limit'] as const;

const list = (value: unknown): string[] => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String));

/** Airalo checks a webhook URL with HEAD when one opts in; anything but 200 is refused. */
async function answersHead(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
    return response.status === 200;
  } catch {
    return false;
  }
}

export function accountRoutes(ctx: AiraloContext, router: Router): void {
  router.get('/balance', (_req: Request, res: Response) => {
    res.json({ data: { balances: { name: 'balance', availableBalance: { amount: ctx.state.balance, currency: 'USD' } } }, meta: { message: 'success' } });
  });

  router.post('/refund', (req: Request, res: Response) => {
    if (!withinLimit(ctx, res, `refund:${req.ip ?? ''}`, ctx.settings.rateLimits.refund)) return;
    const iccids = list(field(req, 'iccids'));
    const reason = text(field(req, 'reason'));
    const notes = text(field(req, 'notes'));
    if (iccids.length === 0) return invalidRequest(res, 'The iccids field is required.');
    if (iccids.length > 5) return invalidParameters(res, { iccids: 'The iccids may not have more than 5 items.' });
    if (!reason || !AIRALO_REFUND_REASONS.includes(reason))
      return invalidParameters(res, { reason: `The selected reason is invalid. It must be one of the following: ${AIRALO_REFUND_REASONS.join(', ')}` });
    if (reason === 'OTHERS' && !notes) return invalidParameters(res, { notes: 'The notes field is required when reason is OTHERS.' });
    if (notes && notes.length > 255) return invalidParameters(res, { notes: 'The notes may not be greater than 255 characters.' });
    const foreign = iccids.filter((i) => !(i in ctx.state.sims));
    if (foreign.length) return invalidRequest(res, `The following ICCIDs do not belong to your company: ${foreign.join(', ')}`);
    const refundId = String(ctx.state.next_refund_id++);
    const createdAt = airaloDateTime(ctx.clock.now()).slice(0, 16);
    ctx.state.refunds.push({ refund_id: refundId, created_at: createdAt, iccids, reason, ...(notes ? { notes } : {}) });
    // Requests are reviewed by a person at Airalo; the fake approves an unused eSIM at once and
    // credits its net price, which is what a partner sees when the review agrees.
    for (const iccid of iccids) {
      const sim = ctx.state.sims[iccid]!;
      if (sim.status !== 'NOT_ACTIVE' || sim.refund_id) continue;
      sim.refund_id = refundId;
      ctx.state.balance = Math.round((ctx.state.balance + ctx.packages.get(sim.package_id)!.pkg.net_price) * 100) / 100;
      const order = ctx.state.orders.find((o) => o.id === sim.order_id)!;
      const refunded = order.iccids.filter((i) => ctx.state.sims[i]!.refund_id).length;
      order.status = refunded === order.iccids.length ? 'refunded' : 'partially_refunded';
    }
    ctx.save();
    res.status(202).json({ data: { refund_id: refundId, created_at: createdAt }, meta: { message: 'success' } });
  });

  router.post('/notifications/opt-in', async (req: Request, res: Response) => {
    const type = text(field(req, 'type'));
    const webhookUrl = text(field(req, 'webhook_url'));
    // AIR-13: the email variants are not in the document's enum; the fake offers webhooks only.
    if (!type || !(WEBHOOK_TYPES as readonly string[]).includes(type)) return invalidParameters(res, { type: 'The selected type is invalid.' });
    if (!webhookUrl) return invalidParameters(res, { webhook_url: 'The webhook url field is required.' });
    if (!/^https?:\/\//.test(webhookUrl)) return invalidParameters(res, { webhook_url: 'The webhook url format is invalid.' });
    if (ctx.settings.checkWebhookOnOptIn && !(await answersHead(webhookUrl)))
      return invalidParameters(res, { webhook_url: 'The webhook url did not answer a HEAD request with 200 OK.' });
    const levels = list(field(req, 'levels')).map(Number);
    const notification: AiraloNotification = {
      type: type as AiraloNotification['type'],
      contact_point: webhookUrl,
      ...(type === 'webhook_credit_limit' ? { levels } : {}),
    };
    ctx.state.notifications = [...ctx.state.notifications.filter((n) => n.type !== type), notification];
    ctx.save();
    res.json({ data: { notification: { type, contact_point: webhookUrl, ...(notification.levels ? { levels } : {}) } }, meta: { message: 'success' } });
  });

  router.get('/notifications/opt-in', (_req: Request, res: Response) => {
    const notification = ctx.state.notifications.find((n) => n.type === 'webhook_low_data') ?? ctx.state.notifications[0];
    if (!notification) return notFound(res);
    res.json({ data: { notification: { type: notification.type, contact_point: notification.contact_point } }, meta: { message: 'success' } });
  });

  router.post('/notifications/opt-out', (req: Request, res: Response) => {
    const type = text(field(req, 'type'));
    if (!type) return invalidParameters(res, { type: 'The type field is required.' });
    ctx.state.notifications = ctx.state.notifications.filter((n) => n.type !== type);
    ctx.save();
    res.status(204).end();
  });
}
