import { randomUUID } from 'node:crypto';
import type { Request, Response, Router } from 'express';
import { isPlainObject } from '../shared/openapi/validator.ts';
import { asText } from '../shared/text.ts';
import { networksOf } from './catalogue.ts';
import { bundleOf, type EsimGoContext } from './context.ts';
import { ESIM_GO_FILTER_COLUMNS } from './deviations.ts';
import { badRequest, failure, notAccessible } from './errors.ts';
import { isoTime, recordHistory } from './lifecycle.ts';
import { bundlesBody, esimDetails, installDetails, listedEsim, round } from './presenters.ts';
import { applyBundle, newEsim } from './orders.ts';
import type { EsimGoAssignment, EsimGoEsim } from './state.ts';

const UNUSED: EsimGoAssignment['state'][] = ['processing', 'queued'];
const IN_USE: EsimGoAssignment['state'][] = ['processing', 'queued', 'active'];

function esimFor(ctx: EsimGoContext, req: Request, res: Response): EsimGoEsim | undefined {
  const esim = ctx.state.esims[String(req.params.iccid)];
  if (!esim) notAccessible(res, 'ICCID');
  return esim;
}

/** Revokes one assignment; an unused one goes back to inventory or, asked and allowed, to the balance. */
function revoke(ctx: EsimGoContext, esim: EsimGoEsim, assignment: EsimGoAssignment, req: Request, res: Response): void {
  const unused = UNUSED.includes(assignment.state);
  const toBalance = req.query.refundToBalance === 'true';
  const refundable = unused && ctx.settings.refundsEnabled;
  const outcome = !refundable
    ? 'Successfully Revoked Bundle'
    : toBalance
      ? 'Successfully Revoked Bundle, bundle has been refunded to balance'
      : 'Successfully Revoked Bundle, bundle has been refunded to inventory';
  if (req.query.type === 'validate') {
    res.json({
      status: refundable ? `Bundle can be revoked and refunded to ${toBalance ? 'balance' : 'inventory'}` : 'Bundle can be revoked without a refund',
    });
    return;
  }
  assignment.state = 'revoked';
  recordHistory(ctx, esim, 'Bundle Revoked', assignment.bundle);
  if (refundable && toBalance) {
    ctx.state.organisation.balance = round(ctx.state.organisation.balance + assignment.price);
    recordHistory(ctx, esim, 'Bundle Refunded To Balance', assignment.bundle);
  } else if (refundable) {
    ctx.state.inventory.push({
      id: ctx.state.next_usage_id++,
      bundle: assignment.bundle,
      total: 1,
      remaining: 1,
      bought_at: ctx.clock.now(),
      price: assignment.price,
    });
    recordHistory(ctx, esim, 'Bundle Refunded to Inventory', assignment.bundle);
  }
  returnIfBare(ctx, esim);
  ctx.save();
  res.json({ status: outcome });
}

/**
 * The revoke pages: "If there are no bundles left on the eSIM AFTER the revoke, AND if the eSIM is
 * not installed, the eSIM may undergo the eSIM Go returns process", which removes it from the
 * account. The fake starts that process at once (the earliest the vendor may), so the eSIM is
 * gone from every endpoint afterwards.
 */
function returnIfBare(ctx: EsimGoContext, esim: EsimGoEsim): void {
  const bundlesLeft = esim.assignments.some((a) => a.state !== 'revoked' && a.state !== 'expired' && a.state !== 'lapsed');
  if (bundlesLeft || esim.first_installed_at !== undefined) return;
  delete ctx.state.esims[esim.iccid];
  (ctx.state.returned ??= {})[esim.iccid] = esim;
}

export function esimRoutes(ctx: EsimGoContext, router: Router): void {
  router.get('/esims', (req: Request, res: Response) => {
    const perPage = req.query.perPage === undefined ? 25 : Number(req.query.perPage);
    const page = req.query.page === undefined ? 1 : Number(req.query.page);
    if (![10, 25, 50, 100].includes(perPage) || !Number.isInteger(page) || page < 1)
      return badRequest(res, 'perPage must be 10, 25, 50 or 100 and page a positive integer');
    let esims = Object.values(ctx.state.esims).map(listedEsim);
    const filterBy = req.query.filterBy as string | undefined;
    if (filterBy !== undefined) {
      // EG-8: the document's enum is one string naming five columns; each column is accepted.
      if (!ESIM_GO_FILTER_COLUMNS.includes(filterBy)) return badRequest(res, `filterBy must be one of ${ESIM_GO_FILTER_COLUMNS.join(', ')}`);
      const value = asText(req.query.filter) ?? '';
      esims = esims.filter((e) => String(e[filterBy as keyof typeof e]) === value);
    }
    esims.sort((a, b) => a.iccid.localeCompare(b.iccid));
    if (req.query.direction === 'desc') esims.reverse();
    res.json({ esims: esims.slice((page - 1) * perPage, page * perPage) });
  });

  router.put('/esims', (req: Request, res: Response) => {
    // EG-9: the document has both "(Required)" query parameters and a JSON body; the body wins.
    const body = isPlainObject(req.body) ? req.body : {};
    const iccid = asText(body.iccid) ?? asText(req.query.iccid) ?? '';
    const customerRef = body.customerRef ?? req.query.customerRef;
    if (!iccid || typeof customerRef !== 'string') return badRequest(res, 'iccid and customerRef are required');
    const esim = ctx.state.esims[iccid];
    if (!esim) return notAccessible(res, 'ICCID');
    esim.customer_ref = customerRef;
    recordHistory(ctx, esim, 'eSIM Updated');
    ctx.save();
    res.json({ status: 'success' });
  });

  router.get('/esims/assignments', (req: Request, res: Response) => {
    const reference = req.query.reference as string | undefined;
    if (!reference) return badRequest(res, 'reference is required');
    const order = ctx.state.orders.find((o) => o.reference === reference);
    const iccids = order ? order.lines.flatMap((l) => l.iccids) : ctx.state.apply_references[reference];
    if (!iccids) return notAccessible(res, 'Reference');
    const withApple = req.query.additionalFields === 'appleInstallUrl';
    const esims = iccids.map((i) => ctx.state.esims[i]!);
    // EG-7: CSV unless JSON is asked for; ZIP of QR images is not made by the fake.
    if (String(req.headers.accept ?? '').includes('application/json')) {
      const details = esims.map((e) => installDetails(e, withApple));
      res.json(details.length === 1 ? details[0] : details);
      return;
    }
    if (String(req.headers.accept ?? '').includes('application/zip')) return failure(res, 406, 'application/zip is not served by this fake');
    const rows = esims.map((e) => [e.iccid, e.matching_id, e.smdp_address, e.profile_status, reference].join(','));
    res.type('text/csv').send(['ICCID,Matching ID,RSP URL,Profile Status,Reference', ...rows].join('\n'));
  });

  router.post('/esims/apply', (req: Request, res: Response) => {
    const body = isPlainObject(req.body) ? req.body : {};
    const requests = Array.isArray(body.bundles)
      ? (body.bundles as Record<string, unknown>[]).map((b) => ({ name: b.name, repeat: b.repeat, iccid: undefined }))
      : [{ name: body.name, repeat: body.repeat, iccid: body.iccid }];
    const applyReference = randomUUID();
    const applied: { iccid: string; status: string; bundle: string }[] = [];
    for (const request of requests) {
      const bundle = typeof request.name === 'string' ? bundleOf(ctx, request.name) : undefined;
      if (!bundle) return badRequest(res, `Bundle not found: ${String(request.name)}`);
      const count = request.iccid ? 1 : Number(request.repeat ?? 1);
      const stock = ctx.state.inventory.find((i) => i.bundle === bundle.name && i.remaining >= count);
      if (!stock) return failure(res, 403, 'The user does not have any available Bundles left');
      for (let i = 0; i < count; i++) {
        const esim = request.iccid ? ctx.state.esims[asText(request.iccid) ?? ''] : newEsim(ctx);
        if (!esim) return notAccessible(res, 'ICCID');
        applyBundle(ctx, esim, bundle, applyReference);
        stock.remaining -= 1;
        applied.push({ iccid: esim.iccid, status: 'ACTIVE', bundle: bundle.name });
      }
    }
    ctx.state.apply_references[applyReference] = applied.map((a) => a.iccid);
    ctx.save();
    res.json({ esims: applied, applyReference });
  });

  router.get('/esims/:iccid', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (esim) res.json(esimDetails(esim, req.query.additionalFields === 'appleInstallUrl'));
  });

  router.get('/esims/:iccid/bundles', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    const limit = req.query.limit === undefined ? 15 : Number(req.query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) return badRequest(res, 'limit must be between 1 and 200');
    const assignments = esim.assignments.filter((a) => req.query.includeUsed === 'true' || IN_USE.includes(a.state)).slice(-limit);
    res.json(bundlesBody(ctx, assignments));
  });

  router.get('/esims/:iccid/bundles/:name', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    const assignments = esim.assignments.filter((a) => a.bundle === req.params.name);
    if (assignments.length === 0) return failure(res, 403, 'The bundle is not assigned to this eSIM');
    // EG-14: the schema's list of assignments (the prose speaks of the latest one only).
    res.json({ assignments: bundlesBody(ctx, assignments).bundles[0]!.assignments });
  });

  router.delete('/esims/:iccid/bundles/:name', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    const ofName = esim.assignments.filter((a) => a.bundle === req.params.name);
    // "the oldest unused assignment will be revoked", else the one in use.
    const target = ofName.find((a) => UNUSED.includes(a.state)) ?? ofName.find((a) => a.state === 'active');
    if (!target) return failure(res, 403, 'The user does not have any available Bundles left on this eSIM');
    revoke(ctx, esim, target, req, res);
  });

  router.delete('/esims/:iccid/bundles/:name/assignments/:assignmentId', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    const target = esim.assignments.find((a) => a.bundle === req.params.name && a.id === req.params.assignmentId);
    if (!target || !IN_USE.includes(target.state)) return failure(res, 403, 'The assignment cannot be revoked');
    revoke(ctx, esim, target, req, res);
  });

  router.get('/esims/:iccid/history', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    // EG-6: the array the example shows.
    if (esim) res.json([...esim.history].reverse());
  });

  router.get('/esims/:iccid/location', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    if (esim.attached_at === undefined) return badRequest(res, 'The eSIM has not been seen on a network');
    const iso = bundleOf(ctx, esim.assignments[0]?.bundle ?? '')?.countries[0] ?? 'GB';
    const network = networksOf(iso)[0]!;
    res.json({
      mobileNetworkCode: network.tagid,
      networkName: network.name,
      networkBrandName: network.brandName,
      country: iso,
      lastSeen: isoTime(ctx.clock.now()),
    });
  });

  router.get('/esims/:iccid/refresh', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    recordHistory(ctx, esim, 'eSIM Refreshed');
    ctx.save();
    res.json({ status: 'Successfully refreshed SIM' });
  });

  router.get('/esims/:iccid/compatible/:bundle', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (esim) res.json({ compatible: bundleOf(ctx, String(req.params.bundle)) !== undefined });
  });

  router.post('/esims/:iccid/sms', (req: Request, res: Response) => {
    const esim = esimFor(ctx, req, res);
    if (!esim) return;
    const message = isPlainObject(req.body) ? req.body.message : undefined;
    if (typeof message !== 'string' || message.length < 1 || message.length > 160) return badRequest(res, 'message must be 1 to 160 characters');
    res.json({ status: 'sent' });
  });
}
