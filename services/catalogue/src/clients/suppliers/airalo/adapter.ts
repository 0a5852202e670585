import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProfileReport, SuppliedProfile } from '@connectivity/contracts';
import { errorMessage, type Logger } from '@connectivity/platform';
import type { z } from 'zod';
import { SupplierError, type Supplier, type SupplierBundle, type SupplierCallback } from '../port.ts';
import { createCatalogueCache, centsOf, isoCountries, regionOf, usableBundleName, type VendorCatalogue } from '../vendor-catalogue.ts';
import { createVendorHttp, type VendorAnswer, type VendorRequest } from '../vendor-http.ts';
import { VendorIccids } from '../vendor-iccid.ts';
import {
  AIRALO_LIMITS,
  AIRALO_MB,
  airaloTime,
  lowDataWebhookSchema,
  orderAnswerSchema,
  ordersListSchema,
  packagesAnswerSchema,
  tokenAnswerSchema,
  usageAnswerSchema,
  validationErrorSchema,
  type AiraloUsage,
} from './api.ts';
import { TokenCache } from './token.ts';

export const AIRALO_DEFAULT_URL = 'https://partners-api.airalo.com/v2';

export interface AiraloOptions {
  baseUrl: string;
  clientId: string;
  /** Also the key of the webhooks' HMAC-SHA512 signature (Airalo has no separate webhook secret). */
  clientSecret: string;
  timeoutMs: number;
  retries: number;
  breakerThreshold: number;
  breakerCooldownMs: number;
  marginPercent: number;
  catalogueTtlMs: number;
  catalogueMaxStaleMs: number;
  logger: Logger;
}

/** Airalo's 4xx answers in our terms (429 and 5xx are handled as transient before this). */
function airaloError(status: number, body: unknown, what: string): SupplierError {
  const message = `${what} answered ${status}`;
  if (status === 401) return new SupplierError('refused', `${message} (token refused)`, { status });
  if (status === 404) return new SupplierError('unknown', message, { status });
  const validation = validationErrorSchema.safeParse(body);
  if (status === 422 && validation.success && 'package_id' in validation.data.data) return new SupplierError('unknown', message, { status });
  return new SupplierError('refused', message, { status });
}

function read<S extends z.ZodTypeAny>(schema: S, answer: VendorAnswer, what: string): z.infer<S> {
  const parsed = schema.safeParse(answer.body);
  // An answer we cannot read is the vendor's fault, and maybe a passing one.
  if (!parsed.success) throw new SupplierError('unavailable', `${what} answered a body we cannot read`);
  return parsed.data as z.infer<S>;
}

/**
 * Airalo's usage in our terms (docs/decisions/0130-vendor-status-mapping.md). Airalo reports no
 * install: a profile is `released` until its package starts (ACTIVE, the first network attach
 * under the first-usage policy).
 */
export function airaloReport(iccid: string, usage: AiraloUsage, observedAt: number): ProfileReport {
  const unlimited = usage.is_unlimited === true || (usage.total ?? 0) <= 0;
  const limit = unlimited ? null : Math.round((usage.total ?? 0) * AIRALO_MB);
  const used =
    unlimited || usage.remaining === null || usage.remaining === undefined ? null : Math.max(0, Math.round(((usage.total ?? 0) - usage.remaining) * AIRALO_MB));
  const expiresAt = airaloTime(usage.expired_at) ?? null;
  const base = { iccid, data_limit_bytes: limit, observed_at: observedAt };
  switch (usage.status) {
    case 'ACTIVE':
      return { ...base, state: 'active', expired_reason: null, data_used_bytes: used, expires_at: expiresAt };
    case 'FINISHED':
      return { ...base, state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: limit ?? used, expires_at: expiresAt };
    case 'EXPIRED':
    case 'RECYCLED':
      return { ...base, state: 'expired', expired_reason: 'validity_ended', data_used_bytes: used, expires_at: expiresAt };
    default:
      // NOT_ACTIVE, UNKNOWN or a status Airalo adds later: nothing to move (reports only move forward).
      return { ...base, state: 'released', expired_reason: null, data_used_bytes: null, expires_at: null };
  }
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

const sameHex = (a: string, b: string) => {
  const left = Buffer.from(a.trim().toLowerCase(), 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/** The live supplier adapter for the Airalo Partner API v2. */
export function createAiraloSupplier(options: AiraloOptions): Supplier {
  const http = createVendorHttp({ vendor: 'airalo', ...options }, airaloError);
  const iccids = new VendorIccids();
  const tokens = new TokenCache(async () => {
    const answer = await http.request({
      operation: 'token',
      method: 'POST',
      path: '/token',
      // AIR-4: the document's form encoding.
      form: { client_id: options.clientId, client_secret: options.clientSecret, grant_type: 'client_credentials' },
      idempotent: true,
      limits: [{ key: 'token', rule: AIRALO_LIMITS.token }],
    });
    const { data } = read(tokenAnswerSchema, answer, 'airalo token');
    return { value: data.access_token, expiresInSeconds: data.expires_in };
  });

  /** A call with the cached token; a 401 drops it and the call is made once more with a new one. */
  async function call(req: VendorRequest): Promise<VendorAnswer> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await tokens.get();
      try {
        return await http.request({ ...req, headers: { ...req.headers, authorization: `Bearer ${token}` } });
      } catch (error) {
        if (!(error instanceof SupplierError) || error.status !== 401) throw error;
        tokens.invalidate(token);
        if (attempt >= 1) throw new SupplierError('unavailable', 'airalo refuses our credentials', { status: 401 });
      }
    }
  }

  async function loadCatalogue(): Promise<VendorCatalogue> {
    const bundles: SupplierBundle[] = [];
    const costs = new Map<string, number>();
    for (let page = 1, last = 1; page <= last; page += 1) {
      const answer = await call({
        operation: 'list_packages',
        method: 'GET',
        path: '/packages',
        query: { limit: 100, page },
        idempotent: true,
        limits: [{ key: 'packages', rule: AIRALO_LIMITS.packages }],
      });
      const { data, meta } = read(packagesAnswerSchema, answer, 'airalo packages');
      last = Math.min(meta?.last_page ?? 1, 100);
      for (const destination of data) {
        for (const operator of destination.operators) {
          const countries = isoCountries(operator.countries.length ? operator.countries.map((c) => c.country_code) : [destination.country_code ?? '']);
          for (const pkg of operator.packages) {
            if (pkg.type !== 'sim' || costs.has(pkg.id) || !usableBundleName(pkg.id) || countries.length === 0 || pkg.day < 1) continue;
            bundles.push({
              name: pkg.id,
              description: `${pkg.title ?? pkg.id} in ${destination.title}.`,
              data_mb: pkg.is_unlimited ? null : Math.round(pkg.amount),
              unlimited: pkg.is_unlimited,
              duration_days: pkg.day,
              countries,
              region: regionOf(countries),
              retired: false,
            });
            costs.set(pkg.id, centsOf(pkg.net_price));
          }
        }
      }
    }
    // `net_price` is in USD whatever the account's currency (the other currencies are in `prices`).
    return { bundles, costs, currency: 'USD' };
  }

  const catalogue = createCatalogueCache(
    { ttlMs: options.catalogueTtlMs, maxStaleMs: options.catalogueMaxStaleMs, marginPercent: options.marginPercent, vendor: 'airalo', logger: options.logger },
    loadCatalogue,
  );

  function profilesOf(sims: { iccid: string; lpa: string; matching_id: string }[]): SuppliedProfile[] | undefined {
    const profiles = sims.map((sim) => ({ iccid: iccids.fromVendor(sim.iccid), smdp_address: sim.lpa, matching_id: sim.matching_id }));
    if (profiles.some((p) => p.iccid === undefined || p.smdp_address.includes('$') || p.matching_id.includes('$'))) return undefined;
    return profiles as SuppliedProfile[];
  }

  /** The usage of a profile and the form of its ICCID Airalo knows. */
  async function usageOf(iccid: string): Promise<{ usage: AiraloUsage; vendorIccid: string }> {
    for (const candidate of iccids.candidates(iccid)) {
      try {
        const answer = await call({
          operation: 'sim_usage',
          method: 'GET',
          path: `/sims/${encodeURIComponent(candidate)}/usage`,
          idempotent: true,
          limits: [
            { key: `usage:${candidate}`, rule: AIRALO_LIMITS.usagePerIccid },
            { key: 'usage', rule: AIRALO_LIMITS.usagePerClient },
          ],
        });
        iccids.fromVendor(candidate);
        return { usage: read(usageAnswerSchema, answer, 'airalo usage').data, vendorIccid: candidate };
      } catch (error) {
        if (!(error instanceof SupplierError) || error.failure !== 'unknown') throw error;
      }
    }
    throw new SupplierError('unknown', `airalo does not know eSIM ${iccid}`);
  }

  async function report(iccid: string): Promise<ProfileReport> {
    const { usage } = await usageOf(iccid);
    return airaloReport(iccid, usage, nowSeconds());
  }

  const unsupported = (what: string) => () => Promise.reject(new SupplierError('unsupported', `airalo cannot ${what} an eSIM (AIR-17)`));

  async function refund(vendorIccid: string, notes: string): Promise<void> {
    await call({
      operation: 'refund',
      method: 'POST',
      path: '/refund',
      json: { iccids: [vendorIccid], reason: 'OTHERS', notes },
      idempotent: false,
      limits: [{ key: 'refund', rule: AIRALO_LIMITS.refund }],
    });
  }

  return {
    live: true,
    vendor: 'airalo',
    listBundles: () => catalogue.bundles(),
    listPrices: () => catalogue.prices(),

    async orderProfiles({ reference, bundle, quantity }) {
      const answer = await call({
        operation: 'place_order',
        method: 'POST',
        path: '/orders',
        // Our order id as the order's description: what findOrder looks for after a crash.
        json: { quantity, package_id: bundle, type: 'sim', description: reference },
        idempotent: false,
      });
      const order = read(orderAnswerSchema, answer, 'airalo order');
      const profiles = profilesOf(order.data.sims);
      if (profiles && profiles.length === quantity) return profiles;
      // Bought but not usable by us (an ICCID we cannot hold, or a short delivery): given back at once.
      options.logger.error(
        { reference, order: order.data.id, delivered: order.data.sims.length, quantity },
        'airalo delivered profiles we cannot use; refunding them',
      );
      for (const sim of order.data.sims) await refund(sim.iccid, `Unusable delivery of order ${reference}.`).catch(() => undefined);
      throw new SupplierError('refused', `airalo delivered ${order.data.sims.length} usable of ${quantity} profiles`);
    },

    async findOrder(reference) {
      const answer = await call({
        operation: 'find_order',
        method: 'GET',
        path: '/orders',
        query: { 'filter[description]': reference, include: 'sims', limit: 50 },
        idempotent: true,
      });
      // The filter matches a part of the description: only an exact match is our order. Newest
      // first; more than one would be a double purchase, and the first one placed is ours.
      const matches = read(ordersListSchema, answer, 'airalo orders').data.filter((o) => o.description === reference);
      if (matches.length > 1) options.logger.error({ reference, orders: matches.map((o) => o.id) }, 'airalo holds several orders for one reference');
      const order = matches.at(-1);
      if (!order) return undefined;
      const profiles = profilesOf(order.sims ?? []);
      if (!profiles) throw new SupplierError('refused', `airalo order ${order.id} holds profiles we cannot use`);
      return profiles;
    },

    profileReport: report,

    async parseCallback({ rawBody, headers }: SupplierCallback) {
      const signature = headers['airalo-signature'];
      if (!signature) throw new SupplierError('forged', 'the airalo callback carries no signature');
      const text = rawBody.toString('utf8');
      const sign = (body: string) => createHmac('sha512', options.clientSecret).update(body).digest('hex');
      let payload: unknown;
      try {
        payload = JSON.parse(text);
      } catch {
        payload = undefined;
      }
      // The exact bytes, or (as the official SDK checks) the payload as Airalo's PHP encodes it.
      const reencoded = payload === undefined ? undefined : JSON.stringify(payload).replace(/\//g, '\\/');
      if (!sameHex(signature, sign(text)) && !(reencoded !== undefined && sameHex(signature, sign(reencoded)))) {
        throw new SupplierError('forged', 'the airalo callback signature does not match');
      }
      if (payload === undefined) throw new SupplierError('malformed', 'the airalo callback is not JSON');
      const lowData = lowDataWebhookSchema.safeParse(payload);
      // Other webhooks (async orders, credit limit) say nothing about a profile's life.
      if (!lowData.success) return [];
      const iccid = iccids.fromVendor(lowData.data.iccid);
      if (iccid === undefined) return [];
      try {
        // The webhook is a nudge with percentages; the usage endpoint has the bytes and the status.
        return [await report(iccid)];
      } catch (error) {
        if (error instanceof SupplierError && error.failure === 'unknown') return [];
        options.logger.warn({ err: errorMessage(error), level: lowData.data.level }, 'airalo usage unreadable; reporting from the webhook alone');
        const pkg = lowData.data.package_name ? catalogue.peek()?.bundles.find((b) => b.name === lowData.data.package_name) : undefined;
        const limit = pkg?.data_mb ? pkg.data_mb * AIRALO_MB : null;
        const remaining = lowData.data.remaining_percentage;
        const used = limit !== null && remaining !== undefined ? Math.round((limit * (100 - Math.min(100, Math.max(0, remaining)))) / 100) : null;
        return [{ iccid, state: 'active', expired_reason: null, data_used_bytes: used, data_limit_bytes: limit, expires_at: null, observed_at: nowSeconds() }];
      }
    },

    suspendProfile: unsupported('suspend'),
    resumeProfile: unsupported('resume'),

    async terminateProfile(iccid) {
      const { usage, vendorIccid } = await usageOf(iccid);
      switch (usage.status) {
        case 'NOT_ACTIVE':
          // Never used: Airalo refunds it (its only way back, AIR-17); asking again is harmless.
          await refund(vendorIccid, 'Cancelled by the reseller before first use.');
          return;
        case 'FINISHED':
        case 'EXPIRED':
        case 'RECYCLED':
          return;
        case 'ACTIVE':
          throw new SupplierError('unsupported', 'airalo cannot end an eSIM in use');
        default:
          throw new SupplierError('unavailable', `airalo reports eSIM ${iccid} as ${usage.status}`);
      }
    },
  };
}
