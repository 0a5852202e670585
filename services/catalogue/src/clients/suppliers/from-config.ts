import type { Logger } from '@connectivity/platform';
import type { Config } from '../../config.ts';
import { createAiraloSupplier } from './airalo/adapter.ts';
import { createEsimGoSupplier } from './esim-go/adapter.ts';
import type { Supplier } from './port.ts';
import { unconfiguredSupplier } from './unconfigured.ts';
import { expectVendorNotices } from './vendor-notices.ts';

/** The live supplier adapter `LIVE_SUPPLIER` names, or the unconfigured one. */
export function liveSupplierFromConfig(config: Config, logger: Logger): Supplier {
  const common = {
    timeoutMs: config.SUPPLIER_TIMEOUT_MS,
    retries: config.SUPPLIER_RETRIES,
    breakerThreshold: config.SUPPLIER_BREAKER_THRESHOLD,
    breakerCooldownMs: config.SUPPLIER_BREAKER_COOLDOWN_MS,
    marginPercent: config.SUPPLIER_MARGIN_PERCENT,
    catalogueTtlMs: config.SUPPLIER_CATALOGUE_TTL_MS,
    catalogueMaxStaleMs: config.SUPPLIER_CATALOGUE_MAX_STALE_MS,
    orderSettleMs: config.SUPPLIER_ORDER_SETTLE_MS,
    maxQueuedPerTenant: config.SUPPLIER_MAX_QUEUED_PER_ACCOUNT,
    tenantShare: config.SUPPLIER_ACCOUNT_SHARE_PERCENT / 100,
    logger,
  };
  if (config.LIVE_SUPPLIER) expectVendorNotices(config.LIVE_SUPPLIER);
  switch (config.LIVE_SUPPLIER) {
    case 'airalo':
      return createAiraloSupplier({
        ...common,
        baseUrl: config.AIRALO_API_URL,
        clientId: config.AIRALO_CLIENT_ID!,
        clientSecret: config.AIRALO_CLIENT_SECRET!,
        asyncOrdersWebhookUrl: config.AIRALO_WEBHOOK_URL,
        usageCacheMs: config.AIRALO_USAGE_CACHE_MS,
        asyncFromQuantity: config.AIRALO_ASYNC_FROM_QUANTITY,
      });
    case 'esim-go':
      return createEsimGoSupplier({ ...common, baseUrl: config.ESIMGO_API_URL, apiKey: config.ESIMGO_API_KEY! });
    default:
      return unconfiguredSupplier;
  }
}
