import type { Request, Response, Router } from 'express';
import type { AiraloContext } from './context.ts';
import { invalidParameters, invalidRequest } from './errors.ts';
import { field, list, text, withinLimit } from './http.ts';
import { requestRefund } from './refunds.ts';

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

/** POST /v2/refund: validated as Airalo does, then accepted (202) for a person at Airalo to review. */
export function refundRoute(ctx: AiraloContext, router: Router): void {
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
    const refund = requestRefund(ctx, { iccids, reason, ...(notes ? { notes } : {}) });
    res.status(202).json({ data: { refund_id: refund.refund_id, created_at: refund.created_at }, meta: { message: 'success' } });
  });
}
