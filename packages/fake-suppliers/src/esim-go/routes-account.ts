import type { Request, Response, Router } from 'express';
import { isPlainObject } from '../shared/openapi/validator.ts';
import { bundleOf, type EsimGoContext } from './context.ts';
import { badRequest, failure } from './errors.ts';
import { round } from './presenters.ts';

export function accountRoutes(ctx: EsimGoContext, router: Router): void {
  router.get('/organisation', (_req: Request, res: Response) => {
    const org = ctx.state.organisation;
    res.json({
      name: org.name,
      apiKey: `${ctx.settings.apiKey.slice(0, 4)}…`,
      taxLiable: 'No',
      addr1: '1 Example Street',
      addr2: '',
      city: 'London',
      country: 'GB',
      postcode: 'EC1A 1AA',
      callbackUrl: org.callback_url,
      notes: '',
      groups: [...new Set(ctx.catalogue.flatMap((b) => b.groups))],
      currency: org.currency,
      balance: org.balance,
      testCredit: 0,
      businessType: 'Company',
      website: 'https://partner.example',
      productDescription: 'Travel eSIMs',
      users: [
        {
          firstName: 'Fake',
          lastName: 'Partner',
          role: 'Admin',
          emailAddress: 'ops@partner.example',
          phoneNumber: '+44 20 0000 0000',
          timeZone: 'Europe/London',
        },
      ],
    });
  });

  router.get('/organisation/groups', (_req: Request, res: Response) => {
    res.json({ groups: [...new Set(ctx.catalogue.flatMap((b) => b.groups))].map((name) => ({ name })) });
  });

  router.post('/organisation/balance', (req: Request, res: Response) => {
    const amount = Number(req.query.amount);
    // "The minimum top-up amount is $1000 and the maximum daily top-up is set at $5000."
    if (!Number.isFinite(amount) || amount < 1000 || amount > 5000) return badRequest(res, 'amount must be between 1000 and 5000');
    ctx.state.organisation.balance = round(ctx.state.organisation.balance + amount);
    ctx.save();
    res.json({ amount, balance: ctx.state.organisation.balance, ref: ctx.state.next_topup_ref++ });
  });

  router.get('/inventory', (_req: Request, res: Response) => {
    const names = [...new Set(ctx.state.inventory.filter((i) => i.remaining > 0).map((i) => i.bundle))];
    res.json({
      bundles: names.map((name) => {
        const bundle = bundleOf(ctx, name)!;
        return {
          name,
          desc: bundle.description,
          useDms: false,
          available: ctx.state.inventory
            .filter((i) => i.bundle === name && i.remaining > 0)
            .map((i) => ({ id: i.id, total: i.total, remaining: i.remaining, expiry: new Date(i.bought_at + 365 * 86_400_000).toISOString().slice(0, 10) })),
          countries: bundle.countries,
          data: bundle.dataAmount,
          duration: bundle.duration,
          durationUnit: 'day',
          autostart: true,
          unlimited: bundle.unlimited,
          speed: ['4G', '5G'],
          allowances: [
            { type: 'DATA', service: 'STANDARD', description: 'Data Allowance', amount: bundle.dataAmount, unit: 'MB', unlimited: bundle.unlimited },
          ],
        };
      }),
    });
  });

  router.post('/inventory/refund', (req: Request, res: Response) => {
    const body = isPlainObject(req.body) ? req.body : {};
    const item = ctx.state.inventory.find((i) => i.id === body.usageId);
    const quantity = body.quantity;
    if (!item || !Number.isInteger(quantity) || (quantity as number) < 1) return badRequest(res, 'usageId and a positive quantity are required');
    if (!ctx.settings.refundsEnabled) return failure(res, 403, 'Refunds are not enabled for this organisation');
    if ((quantity as number) > item.remaining) return badRequest(res, 'The quantity of a refund cannot exceed the remaining quantity');
    item.remaining -= quantity as number;
    ctx.state.organisation.balance = round(ctx.state.organisation.balance + item.price * (quantity as number));
    ctx.save();
    res.json({ status: 'Successfully refunded bundles to balance' });
  });
}
