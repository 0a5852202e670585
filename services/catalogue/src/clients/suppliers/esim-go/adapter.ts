import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ProfileReport, SuppliedProfile } from '@connectivity/contracts';
import { errorMessage, type Logger } from '@connectivity/platform';
import type { z } from 'zod';
import { SupplierError, type PlacedOrder, type Supplier, type SupplierBundle, type SupplierCallback } from '../port.ts';
import { createCatalogueCache, centsOf, isoCountries, regionOf, usableBundleName, type VendorCatalogue } from '../vendor-catalogue.ts';
import { createVendorHttp, type VendorAnswer, type VendorRequest } from '../vendor-http.ts';
import { VendorIccids } from '../vendor-iccid.ts';
import {
  ESIM_GO_LIMIT,
  IN_USE_STATES,
  bundlesAnswerSchema,
  callbackSchema,
  catalogueAnswerSchema,
  errorBodySchema,
  esimDetailsSchema,
  esimsListSchema,
  orderAnswerSchema,
  ordersListSchema,
  organisationAnswerSchema,
  type EsimGoBundles,
  type EsimGoDetails,
} from './api.ts';

export const ESIMGO_DEFAULT_URL = 'https://api.esim-go.com/v2.4';

export interface EsimGoOptions {
  baseUrl: string;
  /** Also the key of the callbacks' HMAC-SHA256 signature (eSIM Go has no separate callback secret). */
  apiKey: string;
  timeoutMs: number;
  retries: number;
  breakerThreshold: number;
  breakerCooldownMs: number;
  marginPercent: number;
  catalogueTtlMs: number;
  catalogueMaxStaleMs: number;
  logger: Logger;
}

const PAGE = 100;
/** How far the vendor's clock may be behind ours when orders are searched by time (record 0132). */
const CLOCK_SKEW_SECONDS = 300;

/** eSIM Go's 4xx answers (`{"message": …}`) in our terms; 429 and 5xx are transient before this. */
function esimGoError(status: number, body: unknown, what: string): SupplierError {
  const said = errorBodySchema.safeParse(body);
  const text = said.success ? said.data.message : '';
  const message = `${what} answered ${status}`;
  // EG-12: our key refused is our misconfiguration, not a verdict on the request.
  if ((status === 403 && text === 'Forbidden') || status === 401) return new SupplierError('unavailable', `${message} (key refused)`, { status });
  if (status === 403 && /not accessible/i.test(text)) return new SupplierError('unknown', message, { status });
  if (status === 400 && /bundle.*not found/i.test(text)) return new SupplierError('unknown', message, { status });
  // EG-19: a route v2.4 does not have.
  if (status === 404) return new SupplierError('unsupported', message, { status });
  return new SupplierError('refused', message, { status });
}

function read<S extends z.ZodTypeAny>(schema: S, answer: VendorAnswer, what: string): z.infer<S> {
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) throw new SupplierError('unavailable', `${what} answered a body we cannot read`);
  return parsed.data as z.infer<S>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const isoSeconds = (value: string | undefined) => {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
};

/** Profile statuses (EG-18) that say the handset has the profile. */
const ON_A_HANDSET = ['Downloaded', 'Installed', 'Enabled', 'Disabled', 'Deleted', 'Confirmed'];

/**
 * An eSIM's profile status and its latest bundle assignment in our terms
 * (docs/decisions/0130-vendor-status-mapping.md).
 */
export function esimGoReport(iccid: string, details: Pick<EsimGoDetails, 'profileStatus'>, bundles: EsimGoBundles, observedAt: number): ProfileReport {
  const latest = bundles
    .flatMap((b) => b.assignments)
    .sort((a, b) => (Date.parse(b.assignmentDateTime ?? '') || 0) - (Date.parse(a.assignmentDateTime ?? '') || 0))[0];
  const unlimited = latest?.unlimited === true || latest?.initialQuantity === undefined;
  const limit = unlimited ? null : Math.max(0, Math.round(latest.initialQuantity!));
  const used = unlimited || latest?.remainingQuantity === undefined ? null : Math.max(0, Math.round(latest.initialQuantity! - latest.remainingQuantity));
  const base = { iccid, data_limit_bytes: limit, data_used_bytes: used, expires_at: null, observed_at: observedAt };
  switch (latest?.bundleState) {
    case 'active':
      return { ...base, state: 'active', expired_reason: null };
    case 'depleted':
      return { ...base, state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: limit ?? used };
    case 'expired':
    case 'lapsed':
      return { ...base, state: 'expired', expired_reason: 'validity_ended' };
    case 'revoked':
      return { ...base, state: 'expired', expired_reason: 'cancelled' };
    default:
      // Waiting to start (queued, processing) or no bundle: where the profile is says it all.
      return { ...base, state: ON_A_HANDSET.includes(details.profileStatus ?? '') ? 'installed' : 'released', expired_reason: null, data_used_bytes: null };
  }
}

/** A V3 callback in our terms; undefined for alerts that say nothing about the life cycle. */
export function esimGoCallbackReport(iccid: string, callback: z.infer<typeof callbackSchema>, observedAt: number): ProfileReport | undefined {
  if (callback.alertType === 'FirstAttachment') {
    return { iccid, state: 'active', expired_reason: null, data_used_bytes: null, data_limit_bytes: null, expires_at: null, observed_at: observedAt };
  }
  if ((callback.alertType !== 'FirstUse' && callback.alertType !== 'Utilisation') || !callback.bundle) return undefined;
  const { initialQuantity, remainingQuantity, unlimited, endTime } = callback.bundle;
  const limited = unlimited !== true && initialQuantity !== undefined && remainingQuantity !== undefined;
  const limit = limited ? Math.round(initialQuantity) : null;
  const used = limited ? Math.max(0, Math.round(initialQuantity - remainingQuantity)) : null;
  const depleted = limited && remainingQuantity <= 0;
  return {
    iccid,
    state: depleted ? 'expired' : 'active',
    expired_reason: depleted ? 'data_exhausted' : null,
    data_used_bytes: used,
    data_limit_bytes: limit,
    expires_at: isoSeconds(endTime),
    observed_at: observedAt,
  };
}

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

/** The live supplier adapter for the eSIM Go API v2.4. */
export function createEsimGoSupplier(options: EsimGoOptions): Supplier {
  const http = createVendorHttp({ vendor: 'esim-go', ...options }, esimGoError);
  const iccids = new VendorIccids();
  const call = (req: VendorRequest) =>
    http.request({ ...req, headers: { ...req.headers, 'x-api-key': options.apiKey }, limits: [{ key: 'all', rule: ESIM_GO_LIMIT }] });

  async function loadCatalogue(): Promise<VendorCatalogue> {
    const organisation = read(
      organisationAnswerSchema,
      await call({ operation: 'organisation', method: 'GET', path: '/organisation', idempotent: true }),
      'esim-go organisation',
    );
    const bundles: SupplierBundle[] = [];
    const costs = new Map<string, number>();
    for (let page = 1; page <= 100; page += 1) {
      const answer = await call({ operation: 'list_catalogue', method: 'GET', path: '/catalogue', query: { page, perPage: PAGE }, idempotent: true });
      const listed = read(catalogueAnswerSchema, answer, 'esim-go catalogue');
      for (const bundle of listed) {
        const countries = isoCountries(bundle.countries.map((c) => c.iso));
        if (costs.has(bundle.name) || !usableBundleName(bundle.name) || countries.length === 0 || bundle.duration < 1) continue;
        const unlimited = bundle.unlimited === true;
        bundles.push({
          name: bundle.name,
          description: bundle.description ?? bundle.name,
          data_mb: unlimited ? null : Math.round(bundle.dataAmount),
          unlimited,
          duration_days: bundle.duration,
          countries,
          region: regionOf(countries),
          retired: false,
        });
        costs.set(bundle.name, centsOf(bundle.price));
      }
      if (listed.length < PAGE) break;
    }
    return { bundles, costs, currency: organisation.currency.toUpperCase() };
  }

  const catalogue = createCatalogueCache(
    { ttlMs: options.catalogueTtlMs, maxStaleMs: options.catalogueMaxStaleMs, marginPercent: options.marginPercent, vendor: 'esim-go', logger: options.logger },
    loadCatalogue,
  );

  const profileOf = (esim: { iccid: string; matchingId: string; smdpAddress: string }): SuppliedProfile | undefined => {
    const iccid = iccids.fromVendor(esim.iccid);
    if (iccid === undefined || esim.smdpAddress.includes('$') || esim.matchingId.includes('$')) return undefined;
    return { iccid, smdp_address: esim.smdpAddress, matching_id: esim.matchingId };
  };

  /** Runs `work` with the form of the ICCID eSIM Go knows (`unknown` from the first form: the other is tried). */
  async function withVendorIccid<T>(iccid: string, work: (vendorIccid: string) => Promise<T>): Promise<T> {
    for (const candidate of iccids.candidates(iccid)) {
      try {
        const result = await work(candidate);
        iccids.fromVendor(candidate);
        return result;
      } catch (error) {
        if (!(error instanceof SupplierError) || error.failure !== 'unknown') throw error;
      }
    }
    throw new SupplierError('unknown', `esim-go does not know eSIM ${iccid}`);
  }

  const bundlesOf = async (vendorIccid: string) =>
    read(
      bundlesAnswerSchema,
      await call({
        operation: 'esim_bundles',
        method: 'GET',
        path: `/esims/${encodeURIComponent(vendorIccid)}/bundles`,
        query: { includeUsed: true, limit: 200 },
        idempotent: true,
      }),
      'esim-go bundles',
    ).bundles;

  const detailsOf = async (vendorIccid: string) =>
    read(
      esimDetailsSchema,
      await call({ operation: 'esim_details', method: 'GET', path: `/esims/${encodeURIComponent(vendorIccid)}`, idempotent: true }),
      'esim-go eSIM',
    );

  async function report(iccid: string): Promise<ProfileReport> {
    return withVendorIccid(iccid, async (vendorIccid) => {
      const details = await detailsOf(vendorIccid);
      return esimGoReport(iccid, details, await bundlesOf(vendorIccid), nowSeconds());
    });
  }

  /** The ICCIDs (vendor form) of the eSIMs carrying our order id as their customerRef. */
  async function taggedWith(reference: string): Promise<string[]> {
    const answer = await call({
      operation: 'find_order',
      method: 'GET',
      path: '/esims',
      query: { filterBy: 'customerRef', filter: reference, perPage: PAGE },
      idempotent: true,
    });
    return read(esimsListSchema, answer, 'esim-go eSIMs')
      .esims.filter((e) => e.customerRef === reference)
      .map((e) => e.iccid);
  }

  /**
   * No eSIM carries our order id: the call that placed the order may have died between eSIM Go's
   * answer and the tagging (record 0132). An order of the same bundle and quantity, placed since
   * (allowing for clock skew), whose eSIMs carry no customerRef, was bought for an order of ours
   * and never attributed: it is claimed by tagging its eSIMs with this order id, then checked (a
   * claim another retry made at the same time shows, and this one is left to retry). An untagged
   * order still young enough for its own call to be tagging it is not touched: `unavailable`, so
   * the retry comes back later rather than buy again.
   */
  async function claimUntaggedOrder(reference: string, placed: PlacedOrder): Promise<EsimGoDetails[]> {
    const since = new Date((placed.since - CLOCK_SKEW_SECONDS) * 1000).toISOString();
    // The placing call: the order's answer, then each eSIM's tagging with its retries.
    const settleMs = options.timeoutMs * (1 + (options.retries + 1) * placed.quantity) + 2_000;
    for (let page = 1; ; page += 1) {
      const orders = read(
        ordersListSchema,
        await call({
          operation: 'find_order',
          method: 'GET',
          path: '/orders',
          query: { includeIccids: true, createdAt: `gte:${since}`, limit: PAGE, page },
          idempotent: true,
        }),
        'esim-go orders',
      );
      // Oldest first: an order long left untagged before a young one.
      for (const order of [...orders].sort((a, b) => Date.parse(a.createdDate) - Date.parse(b.createdDate))) {
        const [line, ...others] = order.order;
        if (!line || others.length > 0 || line.item !== placed.bundle || line.quantity !== placed.quantity || line.iccids.length !== placed.quantity) continue;
        const details = await Promise.all(line.iccids.map(detailsOf));
        if (details.some((esim) => esim.customerRef)) continue;
        if (Date.now() - Date.parse(order.createdDate) < settleMs) {
          throw new SupplierError(
            'unavailable',
            `esim-go order ${order.orderReference ?? '?'} is untagged but young: the call that placed it may still tag it`,
          );
        }
        for (const iccid of line.iccids) {
          await call({ operation: 'tag_esim', method: 'PUT', path: '/esims', json: { iccid, customerRef: reference }, idempotent: true });
        }
        const claimed = await Promise.all(line.iccids.map(detailsOf));
        if (claimed.some((esim) => esim.customerRef !== reference)) {
          throw new SupplierError('unavailable', `esim-go order ${order.orderReference ?? '?'} was claimed by another order at the same time`);
        }
        options.logger.warn({ reference, order: order.orderReference }, 'esim-go order found untagged after a crash; claimed for its order');
        return claimed;
      }
      if (orders.length < PAGE) return [];
    }
  }

  const unsupported = (what: string) => () => Promise.reject(new SupplierError('unsupported', `esim-go v2.4 cannot ${what} an eSIM (EG-19)`));

  return {
    live: true,
    vendor: 'esim-go',
    listBundles: () => catalogue.bundles(),
    listPrices: () => catalogue.prices(),

    async orderProfiles({ reference, bundle, quantity }) {
      const answer = await call({
        operation: 'place_order',
        method: 'POST',
        path: '/orders',
        json: { type: 'transaction', assign: true, order: [{ type: 'bundle', item: bundle, quantity, allowReassign: false }] },
        idempotent: false,
      });
      const order = read(orderAnswerSchema, answer, 'esim-go order');
      const esims = order.order.flatMap((line) => line.esims);
      // Orders carry no reference of ours: each eSIM gets our order id as its customerRef, which
      // findOrder looks up (docs/decisions/0132-one-purchase-per-order-at-the-vendor.md).
      for (const esim of esims) {
        await call({ operation: 'tag_esim', method: 'PUT', path: '/esims', json: { iccid: esim.iccid, customerRef: reference }, idempotent: true }).catch(
          (error: unknown) => options.logger.error({ reference, err: errorMessage(error) }, 'esim-go eSIM could not be tagged with its order'),
        );
      }
      const profiles = esims.map(profileOf);
      const usable = profiles.filter((p): p is SuppliedProfile => p !== undefined);
      if (usable.length === quantity) return usable;
      options.logger.error(
        { reference, order: order.orderReference, delivered: esims.length, quantity },
        'esim-go delivered profiles we cannot use; revoking them',
      );
      for (const esim of esims) await revokeFor(esim.iccid).catch(() => undefined);
      throw new SupplierError('refused', `esim-go delivered ${esims.length} of ${quantity} usable profiles`);
    },

    async findOrder(reference, placed) {
      const tagged = await taggedWith(reference);
      const esims = tagged.length > 0 ? await Promise.all(tagged.map(detailsOf)) : placed ? await claimUntaggedOrder(reference, placed) : [];
      if (esims.length === 0) return undefined;
      const profiles: SuppliedProfile[] = [];
      for (const esim of esims) {
        const profile = profileOf(esim);
        if (!profile) throw new SupplierError('refused', `esim-go eSIM of order ${reference} cannot be held by us`);
        profiles.push(profile);
      }
      return profiles;
    },

    profileReport: report,

    parseCallback: ({ rawBody, headers }: SupplierCallback) =>
      Promise.resolve().then(() => {
        const signature = headers['x-signature-sha256'];
        if (!signature) throw new SupplierError('forged', 'the esim-go callback carries no signature');
        if (!signatureMatches(signature, rawBody, options.apiKey)) throw new SupplierError('forged', 'the esim-go callback signature does not match');
        let payload: unknown;
        try {
          payload = JSON.parse(rawBody.toString('utf8'));
        } catch {
          throw new SupplierError('malformed', 'the esim-go callback is not JSON');
        }
        const parsed = callbackSchema.safeParse(payload);
        if (!parsed.success) return [];
        const iccid = iccids.fromVendor(parsed.data.iccid);
        const reported = iccid === undefined ? undefined : esimGoCallbackReport(iccid, parsed.data, nowSeconds());
        return reported ? [reported] : [];
      }),

    suspendProfile: unsupported('suspend'),
    resumeProfile: unsupported('resume'),

    async terminateProfile(iccid) {
      await withVendorIccid(iccid, revokeFor);
    },
  };

  /**
   * Revokes the bundle in use (an unused one is refunded to the balance where the account allows
   * refunds); nothing in use: already ended, which is success.
   */
  async function revokeFor(vendorIccid: string): Promise<void> {
    const bundleInUse = async () => (await bundlesOf(vendorIccid)).find((b) => b.assignments.some((a) => IN_USE_STATES.includes(a.bundleState)));
    const inUse = await bundleInUse();
    if (!inUse) return;
    try {
      await call({
        operation: 'revoke_bundle',
        method: 'DELETE',
        path: `/esims/${encodeURIComponent(vendorIccid)}/bundles/${encodeURIComponent(inUse.name)}`,
        query: { refundToBalance: true },
        idempotent: false,
      });
    } catch (error) {
      // A cancel running alongside (or an earlier attempt whose answer was lost) revoked it
      // between our read and our revoke, and eSIM Go refuses to revoke it again: it has ended,
      // which is what was asked.
      if (error instanceof SupplierError && error.failure === 'refused' && !(await bundleInUse())) return;
      throw error;
    }
  }
}
