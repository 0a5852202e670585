import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProfileReport } from '@connectivity/contracts';
import { errorMessage } from '@connectivity/platform';
import { SupplierError, type SupplierCallback } from '../port.ts';
import { recordVendorNotice } from '../vendor-notices.ts';
import { AIRALO_MB, creditLimitWebhookSchema, lowDataWebhookSchema } from './api.ts';
import { airaloProfileReport } from './reports.ts';
import type { AiraloSession } from './session.ts';

/** Airalo's expiry levels as the report's mark (record 0236); the data levels ("75%", "90%") say nothing of it. */
const expiringOf = (level: string): Pick<ProfileReport, 'expiring_days_left'> =>
  level === '3days' ? { expiring_days_left: 3 } : level === '1days' ? { expiring_days_left: 1 } : {};

const sameHex = (a: string, b: string) => {
  const left = Buffer.from(a.trim().toLowerCase(), 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * An Airalo webhook: `airalo-signature` (HMAC-SHA512, hex, keyed with the client secret) checked on
 * the exact bytes, or (as the official SDK checks) on the payload as Airalo's PHP encodes it. Only
 * the low-data notice says anything about a profile's life: it is a nudge with percentages, so the
 * usage endpoint is asked for the bytes and the status; its `3days`/`1days` levels also say the
 * validity ends soon, which inventory announces as `esim.expiring` (record 0236). A credit-limit notice
 * is for operators: a metric and a log line (record 0237). An async-order notice is acknowledged and read
 * nowhere here (an async order is read back by its reference, record 0159).
 */
export async function parseAiraloCallback(session: AiraloSession, { rawBody, headers }: SupplierCallback): Promise<ProfileReport[]> {
  const signature = headers['airalo-signature'];
  if (!signature) throw new SupplierError('forged', 'the airalo callback carries no signature');
  const text = rawBody.toString('utf8');
  const sign = (body: string) => createHmac('sha512', session.options.clientSecret).update(body).digest('hex');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = undefined;
  }
  const reencoded = payload === undefined ? undefined : JSON.stringify(payload).replace(/\//g, '\\/');
  if (!sameHex(signature, sign(text)) && !(reencoded !== undefined && sameHex(signature, sign(reencoded)))) {
    throw new SupplierError('forged', 'the airalo callback signature does not match');
  }
  if (payload === undefined) throw new SupplierError('malformed', 'the airalo callback is not JSON');
  const lowData = lowDataWebhookSchema.safeParse(payload);
  if (!lowData.success) {
    const credit = creditLimitWebhookSchema.safeParse(payload);
    if (credit.success) recordVendorNotice(session.options.logger, 'airalo', 'credit_limit', credit.data.remaining, credit.data.message);
    return [];
  }
  const iccid = session.iccids.fromVendor(lowData.data.iccid);
  if (iccid === undefined) return [];
  const expiring = expiringOf(lowData.data.level);
  try {
    return [{ ...(await airaloProfileReport(session, iccid)), ...expiring }];
  } catch (error) {
    if (error instanceof SupplierError && error.failure === 'unknown') return [];
    session.options.logger.warn({ err: errorMessage(error), level: lowData.data.level }, 'airalo usage unreadable; reporting from the webhook alone');
    const pkg = lowData.data.package_name ? session.catalogue.peek()?.bundles.find((b) => b.name === lowData.data.package_name) : undefined;
    const limit = pkg?.data_mb ? pkg.data_mb * AIRALO_MB : null;
    const remaining = lowData.data.remaining_percentage;
    const used = limit !== null && remaining !== undefined ? Math.round((limit * (100 - Math.min(100, Math.max(0, remaining)))) / 100) : null;
    return [
      {
        iccid,
        state: 'active',
        expired_reason: null,
        data_used_bytes: used,
        data_limit_bytes: limit,
        expires_at: null,
        observed_at: Math.floor(Date.now() / 1000),
        vendor_notices_expiry: true,
        ...expiring,
      },
    ];
  }
}
