import { BrokenCircuitError, ConsecutiveBreaker, ExponentialBackoff, circuitBreaker, handleWhen, retry, wrap, type IPolicy } from 'cockatiel';
import type { z } from 'zod';
import { retailPriceCents } from '../../../domain/pricing.ts';
import { SupplierError, type Supplier, type SupplierBundle } from '../port.ts';
import {
  WHOLESALE_ERROR_CODES,
  wholesaleCatalogueSchema,
  wholesaleErrorSchema,
  wholesaleOrderSchema,
  wholesalePricesSchema,
  wholesaleProfileStatusSchema,
} from './wholesale-api.ts';

export interface HttpSupplierOptions {
  baseUrl: string;
  apiKey: string;
  /** Per attempt: a call that takes longer is abandoned (and may be retried). */
  timeoutMs: number;
  /** Extra attempts of an idempotent call after a transient failure. */
  retries: number;
  /** Consecutive transient failures that open the circuit. */
  breakerThreshold: number;
  /** How long an open circuit refuses calls before it lets one through to test the supplier. */
  breakerCooldownMs: number;
  /** Our margin over the wholesale cost, in percent. */
  marginPercent: number;
  /** Called when the circuit opens or closes, for logging. */
  onBreakerChange?: (state: 'open' | 'closed') => void;
}

// Only failures that say nothing about the request itself (network, timeout, 5xx) are retried
// and counted by the breaker; a supplier that answers "no" is healthy.
const isTransient = (error: unknown) => error instanceof SupplierError && error.failure === 'unavailable';

/**
 * The live adapter for the wholesale supplier's JSON API: a timeout on every attempt, retries
 * with backoff on idempotent calls (all of ours are: orders are de-duplicated on their
 * reference), and a circuit breaker so a dead supplier fails fast instead of holding requests.
 */
export function createHttpSupplier(options: HttpSupplierOptions): Supplier {
  const base = options.baseUrl.replace(/\/+$/, '');
  const breaker = circuitBreaker(handleWhen(isTransient), {
    halfOpenAfter: options.breakerCooldownMs,
    breaker: new ConsecutiveBreaker(options.breakerThreshold),
  });
  breaker.onBreak(() => options.onBreakerChange?.('open'));
  breaker.onReset(() => options.onBreakerChange?.('closed'));
  const retrying = retry(handleWhen(isTransient), {
    maxAttempts: options.retries,
    backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 1_000 }),
  });
  const policy: IPolicy = wrap(retrying, breaker);

  async function call<S extends z.ZodTypeAny>(method: 'GET' | 'POST', path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    try {
      return await policy.execute(() => attempt(method, path, schema, body));
    } catch (error) {
      if (error instanceof BrokenCircuitError) {
        throw new SupplierError('unavailable', 'the supplier is failing; calls are paused for a while', { cause: error });
      }
      throw error;
    }
  }

  async function attempt<S extends z.ZodTypeAny>(method: string, path: string, schema: S, body?: unknown): Promise<z.infer<S>> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.apiKey}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new SupplierError('unavailable', timedOut ? `${method} ${path} timed out` : `${method} ${path} failed to connect`, { cause: error });
    }
    const payload: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw failureOf(response.status, payload, `${method} ${path}`);
    const parsed = schema.safeParse(payload);
    // An answer we cannot read is the supplier's fault, and maybe a passing one.
    if (!parsed.success) throw new SupplierError('unavailable', `${method} ${path} answered an unexpected body`);
    return parsed.data as z.infer<S>;
  }

  return {
    live: true,
    async listBundles(): Promise<SupplierBundle[]> {
      const { bundles } = await call('GET', '/v1/catalogue', wholesaleCatalogueSchema);
      return bundles.map(({ status, ...bundle }) => ({ ...bundle, countries: [...bundle.countries].sort(), retired: status === 'retired' }));
    },
    async listPrices() {
      const { prices } = await call('GET', '/v1/prices', wholesalePricesSchema);
      return new Map(prices.map((p) => [p.bundle, retailPriceCents(p.wholesale_cents, options.marginPercent)]));
    },
    async orderProfiles(input) {
      const order = await call('POST', '/v1/orders', wholesaleOrderSchema, input);
      if (order.profiles.length !== input.quantity) {
        throw new SupplierError('refused', `the supplier delivered ${order.profiles.length} of ${input.quantity} profiles`);
      }
      return order.profiles;
    },
    async suspendProfile(iccid) {
      await call('POST', `/v1/profiles/${encodeURIComponent(iccid)}/suspend`, wholesaleProfileStatusSchema, {});
    },
    async resumeProfile(iccid) {
      await call('POST', `/v1/profiles/${encodeURIComponent(iccid)}/resume`, wholesaleProfileStatusSchema, {});
    },
    async terminateProfile(iccid) {
      await call('POST', `/v1/profiles/${encodeURIComponent(iccid)}/terminate`, wholesaleProfileStatusSchema, {});
    },
  };
}

function failureOf(status: number, payload: unknown, what: string): SupplierError {
  const parsed = wholesaleErrorSchema.safeParse(payload);
  const code = parsed.success ? parsed.data.error.code : undefined;
  const message = `${what} answered ${status}${code ? ` ${code}` : ''}`;
  if (status >= 500 || status === 429 || status === 408) return new SupplierError('unavailable', message);
  // Our key being refused is our misconfiguration, not a verdict on the request.
  if (status === 401 || status === 403) return new SupplierError('unavailable', message);
  if (code === WHOLESALE_ERROR_CODES.notSupported) return new SupplierError('unsupported', message);
  if (status === 404) return new SupplierError('unknown', message);
  return new SupplierError('refused', message);
}
