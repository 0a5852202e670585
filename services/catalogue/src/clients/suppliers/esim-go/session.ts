import type { Logger } from '@connectivity/platform';
import { SupplierError } from '../port.ts';
import { createCatalogueCache, type CatalogueCache, type VendorCatalogue } from '../vendor-catalogue.ts';
import { createVendorHttp, type VendorAnswer, type VendorHttp, type VendorRequest } from '../vendor-http.ts';
import { VendorIccids, withKnownIccid } from '../vendor-iccid.ts';
import { BoundedMemo } from '../bounded-memo.ts';
import { ESIM_GO_LIMIT, errorBodySchema } from './api.ts';

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
  /** Calls one account may have waiting under one of the vendor's rate limits (record 0162). */
  maxQueuedPerTenant?: number | undefined;
  /** The part of each rate limit's budget one account may use in any window (record 0162). */
  tenantShare?: number | undefined;
  /** How long eSIM Go may take to make an order it answered "processing" to (its worst case, for "in doubt"). */
  orderSettleMs: number;
  logger: Logger;
}

/** What every eSIM Go operation shares: the HTTP path with the key and the rate limit, ICCID forms, the catalogue. */
export interface EsimGoSession {
  options: EsimGoOptions;
  http: VendorHttp;
  call(req: VendorRequest): Promise<VendorAnswer>;
  iccids: VendorIccids;
  catalogue: CatalogueCache;
  /**
   * The customerRef of eSIMs this process tagged or saw tagged (vendor ICCID → our order id): a
   * customerRef we set is never unset, so an eSIM known tagged needs no call to say so (record 0132).
   */
  tags: BoundedMemo;
}

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

export { read } from '../vendor-http.ts';

export function createEsimGoSession(options: EsimGoOptions, loadCatalogue: (session: EsimGoSession) => Promise<VendorCatalogue>): EsimGoSession {
  const http = createVendorHttp({ vendor: 'esim-go', ...options }, esimGoError);
  const call = (req: VendorRequest) =>
    http.request({ ...req, headers: { ...req.headers, 'x-api-key': options.apiKey }, limits: [{ key: 'all', rule: ESIM_GO_LIMIT }] });
  const session: EsimGoSession = {
    options,
    http,
    call,
    iccids: new VendorIccids(),
    catalogue: undefined as unknown as CatalogueCache,
    tags: new BoundedMemo(),
  };
  session.catalogue = createCatalogueCache(
    { ttlMs: options.catalogueTtlMs, maxStaleMs: options.catalogueMaxStaleMs, marginPercent: options.marginPercent, vendor: 'esim-go', logger: options.logger },
    () => loadCatalogue(session),
  );
  return session;
}

/** The eSIM Go form of one of our ICCIDs that it knows, `work` run with it (`unknown` from the first form: the other is tried). */
export function withVendorIccid<T>(session: EsimGoSession, iccid: string, work: (vendorIccid: string) => Promise<T>): Promise<T> {
  return withKnownIccid(session.iccids, 'esim-go', iccid, work);
}
