import type { Config } from '../../config.ts';
import type { Supplier } from './port.ts';
import { unconfiguredSupplier } from './unconfigured.ts';
import { createHttpSupplier } from './wholesale/http-supplier.ts';

/** The live supplier adapter the configuration names, or the unconfigured one. */
export function liveSupplierFromConfig(config: Config, onBreakerChange?: (state: 'open' | 'closed') => void): Supplier {
  if (!config.SUPPLIER_URL || !config.SUPPLIER_API_KEY) return unconfiguredSupplier;
  return createHttpSupplier({
    baseUrl: config.SUPPLIER_URL,
    apiKey: config.SUPPLIER_API_KEY,
    timeoutMs: config.SUPPLIER_TIMEOUT_MS,
    retries: config.SUPPLIER_RETRIES,
    breakerThreshold: config.SUPPLIER_BREAKER_THRESHOLD,
    breakerCooldownMs: config.SUPPLIER_BREAKER_COOLDOWN_MS,
    marginPercent: config.SUPPLIER_MARGIN_PERCENT,
    ...(onBreakerChange && { onBreakerChange }),
  });
}
