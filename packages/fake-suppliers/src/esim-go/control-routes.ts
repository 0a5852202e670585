import express, { type Router } from 'express';
import { runControl } from '../shared/control.ts';
import type { EsimGoControl } from './start.ts';

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
  router.put('/prices/:name', express.json(), (req, res) =>
    runControl(res, () => {
      const price = (req.body as { price?: unknown } | undefined)?.price;
      if (typeof price !== 'number') throw new Error('price must be a number');
      control.setPrice(String(req.params.name), price);
    }),
  );
  return router;
}
