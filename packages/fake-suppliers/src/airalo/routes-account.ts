import type { Request, Response, Router } from 'express';
import type { AiraloContext } from './context.ts';
import { invalidParameters, notFound } from './errors.ts';
import { field, list, text } from './http.ts';
import type { AiraloNotification } from './state.ts';

const WEBHOOK_TYPES = ['async_orders', 'webhook_low_data', 'webhook_credit_limit'] as const;

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
