import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProfileReport } from '@connectivity/contracts';
import { SupplierError, type SupplierCallback } from '../port.ts';
import { callbackSchema } from './api.ts';
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

/** An eSIM Go V3 callback: `X-Signature-SHA256` (HMAC-SHA256 keyed with the API key) on the raw body, then read into a report. */
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
  const parsed = callbackSchema.safeParse(payload);
  if (!parsed.success) return [];
  const iccid = session.iccids.fromVendor(parsed.data.iccid);
  const reported = iccid === undefined ? undefined : esimGoCallbackReport(iccid, parsed.data, Math.floor(Date.now() / 1000));
  return reported ? [reported] : [];
}
