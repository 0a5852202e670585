import type { Logger } from '@connectivity/platform';
import { SupplierError } from '../port.ts';
import { createCatalogueCache, type CatalogueCache, type VendorCatalogue } from '../vendor-catalogue.ts';
import { createVendorHttp, read, type VendorAnswer, type VendorHttp, type VendorRequest } from '../vendor-http.ts';
import { VendorIccids } from '../vendor-iccid.ts';
import { BoundedMemo } from '../bounded-memo.ts';
import { AIRALO_LIMITS, tokenAnswerSchema, validationErrorSchema } from './api.ts';
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
  /** Calls one account may have waiting under one of the vendor's rate limits (record 0162). */
  maxQueuedPerTenant?: number | undefined;
  /** The part of each rate limit's budget one account may use in any window (record 0162). */
  tenantShare?: number | undefined;
  /** Where Airalo sends the `async_orders` webhook of an order placed with orders-async (our /hooks/airalo); unset: orders are placed synchronously. */
  asyncOrdersWebhookUrl?: string | undefined;
  /** Orders of at least this many eSIMs go through orders-async (record 0159). */
  asyncFromQuantity: number;
  /** How long Airalo may take to make an order it has taken (its worst case, for "in doubt"). */
  orderSettleMs: number;
  /** How long Airalo caches a usage answer (record 0234; default 20 minutes, its usage page). */
  usageCacheMs?: number | undefined;
  logger: Logger;
}

/** What every Airalo operation shares: the HTTP path with its policies, the token, ICCID forms, the catalogue. */
export interface AiraloSession {
  options: AiraloOptions;
  http: VendorHttp;
  /** A call with the cached token; a 401 drops it and the call is made once more with a new one. */
  call(req: VendorRequest): Promise<VendorAnswer>;
  iccids: VendorIccids;
  catalogue: CatalogueCache;
  /**
   * The refund request of each eSIM this process asked Airalo to refund (vendor ICCID → refund_id):
   * asked once, never again (Airalo reviews each by hand, and takes 5 a minute).
   */
  refunds: BoundedMemo;
  /** Refund requests being made, by vendor ICCID: two cancels of one eSIM at once make one request. */
  refundsUnderWay: Map<string, Promise<string>>;
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

export { read } from '../vendor-http.ts';

export function createAiraloSession(options: AiraloOptions, loadCatalogue: (session: AiraloSession) => Promise<VendorCatalogue>): AiraloSession {
  const http = createVendorHttp({ vendor: 'airalo', ...options }, airaloError);
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

  const session: AiraloSession = {
    options,
    http,
    call,
    iccids: new VendorIccids(),
    catalogue: undefined as unknown as CatalogueCache,
    refunds: new BoundedMemo(),
    refundsUnderWay: new Map(),
  };
  session.catalogue = createCatalogueCache(
    { ttlMs: options.catalogueTtlMs, maxStaleMs: options.catalogueMaxStaleMs, marginPercent: options.marginPercent, vendor: 'airalo', logger: options.logger },
    () => loadCatalogue(session),
  );
  return session;
}
