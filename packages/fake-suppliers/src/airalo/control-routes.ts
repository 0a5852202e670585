import express, { type Router } from 'express';
import { priceRoute, runControl } from '../shared/control.ts';
import type { AiraloControl } from './context.ts';

/** `/_fake/...` routes only the Airalo fake has: the review Airalo's support team does by hand. */
export function airaloControlRouter(control: AiraloControl): Router {
  const router = express.Router();
  router.get('/refunds', (_req, res) => res.json(control.refunds()));
  router.post('/refunds/:refundId/approve', (req, res) => runControl(res, () => control.approveRefund(String(req.params.refundId))));
  router.post('/refunds/:refundId/reject', (req, res) => runControl(res, () => control.rejectRefund(String(req.params.refundId))));
  priceRoute(router, (name, price) => control.setPrice(name, price));
  return router;
}
