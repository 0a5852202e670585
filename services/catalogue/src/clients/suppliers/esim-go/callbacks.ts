import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProfileReport } from '@connectivity/contracts';
import { SupplierError, type SupplierCallback } from '../port.ts';
import { recordVendorNotice } from '../vendor-notices.ts';
import { balanceCallbackSchema, callbackSchema } from './api.ts';
import { esimGoCallbackReport } from './reports.ts';
import type { EsimGoSession } from './session.ts';

/** EG-15: the webhooks guide signs in hex, the document's sample in base64; either is accepted. */
function signatureMatches(given: string, body: Buffer, key: string): boolean {
  const digest = createHmac('sha256', key).update(body).digest();
  for (const expected of [digest.toString('hex'), digest.toString('base64')]) {
    const a = Buffer.from(given.trim());
    const b = Buffer.from(expected);
    if (a.length === b.length && timingSafeEqual(a, b)) return true;
  }
  return false;
}

/**
 * An eSIM Go V3 callback: `X-Signature-SHA256` (HMAC-SHA256 keyed with the API key) on the raw body, then
 * read into a report; a balance notification is a metric and a log line for operators (record 0237).
 */
export function parseEsimGoCallback(session: EsimGoSession, { rawBody, headers }: SupplierCallback): ProfileReport[] {
  const signature = headers['x-signature-sha256'];
  if (!signature) throw new SupplierError('forged', 'the esim-go callback carries no signature');
  if (!signatureMatches(signature, rawBody, session.options.apiKey)) throw new SupplierError('forged', 'the esim-go callback signature does not match');
  let payload: unknown;
  try {
    payload = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new SupplierError('malformed', 'the esim-go callback is not JSON');
  }
  const balance = balanceCallbackSchema.safeParse(payload);
  if (balance.success) {
    // About our account, not a profile: for operators (record 0237).
    const kind = balance.data.alertType === 'LowBalance' ? 'low_balance' : 'insufficient_balance';
    recordVendorNotice(session.options.logger, 'esim-go', kind, balance.data.balanceInfo?.balance ?? null);
    return [];
  }
  const parsed = callbackSchema.safeParse(payload);
  if (!parsed.success) return [];
  const iccid = session.iccids.fromVendor(parsed.data.iccid);
  const reported = iccid === undefined ? undefined : esimGoCallbackReport(iccid, parsed.data, Math.floor(Date.now() / 1000));
  return reported ? [reported] : [];
}
