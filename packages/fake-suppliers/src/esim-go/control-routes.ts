import express, { type Router } from 'express';
import { priceRoute, runControl } from '../shared/control.ts';
import type { EsimGoControl } from './context.ts';

/** `/_fake/...` routes only the eSIM Go fake has (the account settings eSIM Go keeps in its portal). */
export function esimGoControlRouter(control: EsimGoControl): Router {
  const router = express.Router();
  router.use(express.json());
  router.put('/refunds', (req, res) =>
    runControl(res, () => {
      const enabled = (req.body as { enabled?: unknown } | undefined)?.enabled;
      if (typeof enabled !== 'boolean') throw new Error('enabled must be true or false');
      control.setRefundsEnabled(enabled);
    }),
  );
  priceRoute(router, (name, price) => control.setPrice(name, price));
  return router;
}
