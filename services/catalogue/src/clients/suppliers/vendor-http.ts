import { setTimeout } from 'node:timers/promises';
import type { SupplierVendor } from '@connectivity/contracts';
import { domainMetrics, type Logger } from '@connectivity/platform';
import { context, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BrokenCircuitError, ConsecutiveBreaker, ExponentialBackoff, circuitBreaker, handleWhen, retry, wrap, type IPolicy } from 'cockatiel';
import type { z } from 'zod';
import { SupplierError } from './port.ts';
import { ClientRateLimiter, type RateRule } from './rate-limiter.ts';
import { currentTenant, currentWaitMs } from './tenant.ts';

export interface VendorHttpOptions {
  vendor: SupplierVendor;
  /** The API base, e.g. https://partners-api.airalo.com/v2. */
  baseUrl: string;
  /** Per attempt: a call that takes longer is abandoned (and, if idempotent, may be retried). */
  timeoutMs: number;
  /** Extra attempts of an idempotent call after a transient failure. */
  retries: number;
  /** Consecutive transient failures that open the circuit. */
  breakerThreshold: number;
  /** How long an open circuit refuses calls before it lets one through to test the vendor. */
  breakerCooldownMs: number;
  /** Calls one tenant (account) may have waiting under one rate limit; more are refused at once (record 0162). */
  maxQueuedPerTenant?: number | undefined;
  /** The part of a rate limit's budget one tenant may use in any window (record 0162). */
  tenantShare?: number | undefined;
  logger: Logger;
}

export interface VendorRequest {
  /** A short name for spans, metrics and logs (`list_packages`, `place_order`). */
  operation: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the base URL, already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  json?: unknown;
  form?: Record<string, string>;
  /**
   * Whether repeating the call cannot do anything twice. Only these are retried: a purchase or a
   * refund whose answer was lost is looked up, never sent again.
   */
  idempotent: boolean;
  /** The vendor's documented limits this call counts against (client side, so the vendor never has to refuse us). */
  limits?: { key: string; rule: RateRule }[];
}

export interface VendorAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON when the answer was JSON, else the text. */
  body: unknown;
}

/** An answer read with its schema; one we cannot read is the vendor's fault, and maybe a passing one. */
export function read<S extends z.ZodTypeAny>(schema: S, answer: VendorAnswer, what: string): z.infer<S> {
  const parsed = schema.safeParse(answer.body);
  if (!parsed.success) throw new SupplierError('unavailable', `${what} answered a body we cannot read`);
  return parsed.data as z.infer<S>;
}

/** How a vendor's own error answer (a 4xx that is not throttling) reads in our terms. */
export type ErrorMapper = (status: number, body: unknown, what: string) => SupplierError;

// Only failures that say nothing about the request itself (network, timeout, 5xx, 429) are
// retried and counted by the breaker; a vendor that answers "no" is healthy, and a call our own
// limiter kept back (`throttled`) says nothing about the vendor at all (record 0162).
const isTransient = (error: unknown) => error instanceof SupplierError && error.failure === 'unavailable';

// Errors of a connection that was never made: the vendor never saw the request.
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET_CLOSED_BEFORE_SEND',
]);

function causeCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** `Retry-After` in seconds (a number of seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

const tracer = trace.getTracer('@connectivity/catalogue');

/**
 * The one HTTP path to a vendor: its documented rate limits kept on our side, a timeout on every
 * attempt, retries with backoff of idempotent calls only, a circuit breaker (cockatiel) so a dead
 * vendor fails fast, a client span per call, and per-vendor latency, error and breaker metrics.
 * The vendor's own words (error bodies) go to the log, never into what callers show integrators.
 */
export function createVendorHttp(options: VendorHttpOptions, mapError: ErrorMapper) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const limiter = new ClientRateLimiter({ maxQueuedPerTenant: options.maxQueuedPerTenant, tenantShare: options.tenantShare });
  const breaker = circuitBreaker(handleWhen(isTransient), {
    halfOpenAfter: options.breakerCooldownMs,
    breaker: new ConsecutiveBreaker(options.breakerThreshold),
  });
  domainMetrics.supplierBreaker(options.vendor, 'closed');
  breaker.onBreak(() => {
    domainMetrics.supplierBreaker(options.vendor, 'open');
    options.logger.warn({ vendor: options.vendor, state: 'open' }, 'live supplier circuit changed');
  });
  breaker.onReset(() => {
    domainMetrics.supplierBreaker(options.vendor, 'closed');
    options.logger.warn({ vendor: options.vendor, state: 'closed' }, 'live supplier circuit changed');
  });
  const retrying = retry(handleWhen(isTransient), {
    maxAttempts: options.retries,
    backoff: new ExponentialBackoff({ initialDelay: 50, maxDelay: 1_000 }),
  });
  const idempotentPolicy: IPolicy = wrap(retrying, breaker);

  /**
   * One call, sent again while the vendor answers 429 and its `Retry-After` (at least 1 s)
   * ends before `deadline` (record 0279): a 429 is the vendor refusing to start, so nothing was
   * done and sending again is safe for any call, a purchase or a revoke too. Past the deadline the
   * 429 is the caller's `supplier_unavailable`, with the vendor's wait.
   */
  async function attempt(req: VendorRequest, deadline: number): Promise<VendorAnswer> {
    for (;;) {
      try {
        return await sendOnce(req);
      } catch (error) {
        if (!(error instanceof SupplierError) || error.status !== 429) throw error;
        // At least a second, the vendors' windows: a `Retry-After: 0` must not become a tight loop.
        const waitMs = Math.max(error.retryAfterSeconds ?? 1, 1) * 1000;
        if (Date.now() + waitMs > deadline) throw error;
        trace.getActiveSpan()?.addEvent('vendor 429 waited out', { 'retry_after.ms': waitMs });
        await setTimeout(waitMs);
      }
    }
  }

  async function sendOnce(req: VendorRequest): Promise<VendorAnswer> {
    const what = `${options.vendor} ${req.operation}`;
    // Waiting for room under a limit counts against the same deadline as the call itself, unless the
    // call is background work nobody waits on (record 0268).
    const tenant = currentTenant();
    const waitMs = currentWaitMs(options.timeoutMs);
    for (const { key, rule } of req.limits ?? []) await limiter.acquire(key, rule, waitMs, what, tenant);
    const url = new URL(`${base}${req.path}`);
    for (const [name, value] of Object.entries(req.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    } else if (req.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method: req.method, headers, ...(body !== undefined && { body }), signal: AbortSignal.timeout(options.timeoutMs) });
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      // A timeout or a connection lost midway leaves it unknown whether the vendor acted on it.
      const sent = timedOut || !NOT_SENT_CODES.has(causeCode(error) ?? '');
      throw new SupplierError('unavailable', timedOut ? `${what} timed out` : `${what} could not connect`, { cause: error, sent });
    }
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (response.ok) return { status: response.status, headers: response.headers, body: parsed };
    // The vendor's words, for us: a bounded excerpt of its body.
    options.logger.warn(
      { vendor: options.vendor, operation: req.operation, status: response.status, vendorBody: text.slice(0, 500) },
      'live supplier answered an error',
    );
    if (response.status >= 500 || response.status === 429 || response.status === 408) {
      // A 5xx may come after the vendor acted (eSIM Go's 503 "processing" says it is still at it);
      // a 429 or 408 is the vendor refusing to start.
      const wait = retryAfterSeconds(response.headers.get('retry-after'));
      throw new SupplierError('unavailable', `${what} answered ${response.status}`, {
        status: response.status,
        sent: response.status >= 500,
        ...(wait !== undefined && { retryAfterSeconds: wait }),
      });
    }
    throw mapError(response.status, parsed, what);
  }

  /** One call, with the policies its kind allows; resolves with a 2xx answer or fails with SupplierError. */
  async function request(req: VendorRequest): Promise<VendorAnswer> {
    const started = performance.now();
    // A vendor call starts a trace of its own (record 0205): the request's trace id and baggage
    // are the client's (the gateway passes them on), not the vendor's to see. The span links the
    // request's span instead of being its child, and runs in a context with nothing of the
    // request's, so what the fetch instrumentation sends is this fresh trace and no baggage.
    const requestSpan = trace.getSpanContext(context.active());
    return tracer.startActiveSpan(
      `${options.vendor} ${req.operation}`,
      {
        kind: SpanKind.CLIENT,
        root: true,
        links: requestSpan && isSpanContextValid(requestSpan) ? [{ context: requestSpan }] : [],
        attributes: {
          'peer.service': options.vendor,
          'supplier.vendor': options.vendor,
          'supplier.operation': req.operation,
          'http.request.method': req.method,
        },
      },
      ROOT_CONTEXT,
      async (span) => {
        let outcome = 'ok';
        // The vendor's 429s are waited out within what the call may wait for room under a limit.
        const deadline = Date.now() + currentWaitMs(options.timeoutMs);
        try {
          const answer = req.idempotent ? await idempotentPolicy.execute(() => attempt(req, deadline)) : await breaker.execute(() => attempt(req, deadline));
          span.setAttribute('http.response.status_code', answer.status);
          return answer;
        } catch (error) {
          const failure =
            error instanceof BrokenCircuitError
              ? new SupplierError('unavailable', `${options.vendor} is failing; calls are paused for a while`, {
                  cause: error,
                  retryAfterSeconds: Math.ceil(options.breakerCooldownMs / 1000),
                })
              : error instanceof SupplierError
                ? error
                : new SupplierError('unavailable', `${options.vendor} ${req.operation} failed`, { cause: error, sent: true });
          outcome = failure.failure;
          if (failure.status !== undefined) span.setAttribute('http.response.status_code', failure.status);
          span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
          throw failure;
        } finally {
          domainMetrics.supplierCalled(options.vendor, req.operation, outcome, (performance.now() - started) / 1000);
          span.end();
        }
      },
    );
  }

  return { request, limiter };
}

export type VendorHttp = ReturnType<typeof createVendorHttp>;
