import { INTERNAL_HEADERS, apiErrorFromZod, isZodSchema } from '@connectivity/contracts';
import type { AppRoute } from '@ts-rest/core';
import { Agent, type Dispatcher } from 'undici';
import { UpstreamFailure, errorFromResponse, upstreamFailureOf } from './internal-errors.ts';
import type { z, ZodTypeAny } from 'zod';
import { currentRequestId } from '../request-context.ts';
import { newId } from '../ids.ts';
import type { Caller } from './internal-auth.ts';

export interface RawRequest {
  method: string;
  /** Path already made safe (built by `pathFor`), without the query. */
  path: string;
  /** The query string without `?`, passed as it is (it was validated against the contract). */
  search?: string | undefined;
  caller?: Caller | undefined;
  headers?: Record<string, string> | undefined;
  body?: string | Uint8Array | undefined;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body decoded as UTF-8 text (what JSON answers need). */
  body: string;
  /** The body exactly as received, for answers that are not text (an image must pass unchanged). */
  bytes: Buffer;
}

/** An answer whose body is read as it comes (an event stream), not gathered first. */
export interface StreamedResponse {
  status: number;
  headers: Record<string, string>;
  body: Dispatcher.ResponseData['body'];
}

export interface InternalClientOptions {
  /** The service called, for messages and logs. */
  service: string;
  baseUrl: string;
  internalToken: string;
  timeoutMs: number;
  /** The pause before the one retry of a call whose connection was never made. Default 100 ms. */
  connectRetryPauseMs?: number;
}

type Schema<R, K extends string> = R extends Record<K, infer S extends ZodTypeAny> ? S : never;
type Part<R, K extends string, Name extends string> = [Schema<R, K>] extends [never] ? object : { [P in Name]: z.input<Schema<R, K>> };
type SuccessStatus<R extends AppRoute> = Extract<keyof R['responses'], 200 | 201>;

/** What a typed call takes: the route's own path parameters, query and body, and who it is for. */
export type CallInput<R extends AppRoute> = Part<R, 'pathParams', 'params'> &
  Part<R, 'query', 'query'> &
  Part<R, 'body', 'body'> & { caller?: Caller | undefined; headers?: Record<string, string> | undefined };

/** The body of the route's success response. */
export type CallResult<R extends AppRoute> = R['responses'][SuccessStatus<R>] extends infer S extends ZodTypeAny ? z.output<S> : unknown;

// One agent for every internal call of the process: connections are kept alive (below Node's own
// 5 s server keep-alive, so a socket the server is closing is not picked for a new request).
const agent: Dispatcher = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000, connections: 256 });
// Streams hold their connection for as long as they are open: they get their own agent (no cap),
// so open streams never take the connections ordinary calls queue for.
const streamAgent: Dispatcher = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 4_000 });

// Decodes as undici's `text()` does (UTF-8, a leading BOM dropped, bad bytes replaced).
const utf8 = new TextDecoder();

/**
 * A path segment from a value: percent-encoded, and `.`/`..` (which URL parsers collapse) encoded
 * too, so no value can change which route a path names.
 */
export function encodePathSegment(value: string): string {
  const encoded = encodeURIComponent(value);
  return encoded === '.' || encoded === '..' ? encoded.replaceAll('.', '%2E') : encoded;
}

/** A route's path with each `:param` replaced by its encoded value. */
export function pathFor(template: string, params: Record<string, unknown>): string {
  return template.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
    const value = params[name];
    if ((typeof value !== 'string' && typeof value !== 'number') || value === '') throw new TypeError(`path parameter ${name} of ${template} is missing`);
    return encodePathSegment(String(value));
  });
}

function searchOf(query: unknown): string {
  if (query === undefined || query === null) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) search.append(key, String(item));
  }
  return search.toString();
}

/**
 * The one internal HTTP client: the gateway's forward, the admin API's calls and every
 * service-to-service client go through it. Keep-alive connections, a timeout per call, the
 * internal token and the caller in headers, the request id of the current request.
 * `call` is typed from a contract route: its path parameters are validated against the route's
 * schema and encoded (never string-built from input), its errors come back as the ApiError the
 * service answered. Trace context is added by the undici instrumentation, once.
 */
export function createInternalClient(options: InternalClientOptions) {
  const base = new URL(options.baseUrl);
  const origin = base.origin;
  const basePath = base.pathname.replace(/\/+$/, '');

  function headersFor(req: RawRequest): Record<string, string> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      [INTERNAL_HEADERS.token]: options.internalToken,
      [INTERNAL_HEADERS.requestId]: currentRequestId() ?? newId('request'),
      ...req.headers,
    };
    if (req.caller) {
      headers[INTERNAL_HEADERS.accountId] = req.caller.accountId;
      headers[INTERNAL_HEADERS.environment] = req.caller.environment;
      if (req.caller.keyId !== undefined) headers[INTERNAL_HEADERS.keyId] = req.caller.keyId;
    }
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  const pathOf = (req: RawRequest) => `${basePath}${req.path}${req.search ? `?${req.search}` : ''}`;

  function headersOf(response: Dispatcher.ResponseData): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) {
      if (typeof value === 'string') out[name] = value;
      else if (Array.isArray(value)) out[name] = value.join(', ');
    }
    return out;
  }

  const retryPauseMs = options.connectRetryPauseMs ?? 100;

  /**
   * A call whose connection was never made (refused, a name not resolved, a connect that timed
   * out) is tried once more: the service never saw it, so a second try is safe whatever the
   * method, as a proxy retries a connect failure. Once, after a short pause, within the call's
   * timeout: it rides out a lookup or a connection that failed once (a container's name while the
   * network settles, a replica being replaced), not a service that is down
   * (docs/decisions/0155-internal-calls-retry-a-connection-never-made.md).
   */
  async function send(req: RawRequest): Promise<RawResponse> {
    const headers = headersFor(req);
    const started = performance.now();
    try {
      return await attempt(req, headers, options.timeoutMs);
    } catch (error) {
      const left = options.timeoutMs - (performance.now() - started) - retryPauseMs;
      if (!(error instanceof UpstreamFailure) || !error.notSent || left <= 0) throw error;
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs));
      return attempt(req, headers, left);
    }
  }

  async function attempt(req: RawRequest, headers: Record<string, string>, timeoutMs: number): Promise<RawResponse> {
    const path = pathOf(req);
    // The whole call, body included, within `timeoutMs`. A timer cleared when the call ends, not
    // `AbortSignal.timeout`, whose timer and signal live on for the full timeout after every
    // call, for the timer heap and the GC to carry
    // (docs/decisions/0123-internal-call-deadline-is-a-cleared-timer.md).
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException(`${options.service} did not answer in time`, 'TimeoutError')), timeoutMs);
    let response: Dispatcher.ResponseData;
    try {
      // The dispatcher takes origin and path apart, so the path is sent exactly as built,
      // without a URL parser resolving anything in it.
      response = await agent.request({
        origin,
        method: req.method,
        path,
        headers,
        body: req.body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: deadline.signal,
      });
      const bytes = Buffer.from(await response.body.arrayBuffer());
      const out = headersOf(response);
      // Decoded only when read: a forward passes the bytes on without ever looking at them.
      let text: string | undefined;
      return {
        status: response.statusCode,
        headers: out,
        bytes,
        get body() {
          return (text ??= utf8.decode(bytes));
        },
      };
    } catch (error) {
      throw upstreamFailureOf(options.service, error);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A call whose answer may never end (an event stream): the headers must come within the
   * timeout, the body has none, and it is the caller's to read or destroy; `signal` (the client
   * going away) ends the call and its connection.
   */
  async function open(req: RawRequest, signal: AbortSignal): Promise<StreamedResponse> {
    try {
      const response = await streamAgent.request({
        origin,
        method: req.method,
        path: pathOf(req),
        headers: headersFor(req),
        body: req.body,
        headersTimeout: options.timeoutMs,
        bodyTimeout: 0,
        signal,
      });
      return { status: response.statusCode, headers: headersOf(response), body: response.body };
    } catch (error) {
      throw upstreamFailureOf(options.service, error);
    }
  }

  /** A typed call that also gives the answer's headers (e.g. `idempotent-replayed`). */
  async function exchange<R extends AppRoute>(route: R, input: CallInput<R>): Promise<{ body: CallResult<R>; headers: Record<string, string> }> {
    const parts = input as { params?: Record<string, unknown>; query?: unknown; body?: unknown };
    const declared = route as { pathParams?: unknown; body?: unknown };
    let params = parts.params ?? {};
    if (isZodSchema(declared.pathParams)) {
      // A value that is not what the route declares never becomes part of a URL.
      const result = declared.pathParams.safeParse(params);
      if (!result.success) throw apiErrorFromZod(result.error, 'path');
      params = result.data as Record<string, unknown>;
    }
    const body = route.method === 'GET' ? undefined : JSON.stringify(parts.body ?? {});
    const response = await send({
      method: route.method,
      path: pathFor(route.path, params),
      search: searchOf(parts.query),
      caller: input.caller,
      headers: input.headers,
      body,
    });
    if (response.status >= 200 && response.status < 300) {
      return { body: (response.body === '' ? undefined : JSON.parse(response.body)) as CallResult<R>, headers: response.headers };
    }
    throw errorFromResponse(options.service, response.status, response.body, response.headers);
  }

  /** A typed call of a contract route; resolves with the success body. */
  const call = async <R extends AppRoute>(route: R, input: CallInput<R>): Promise<CallResult<R>> => (await exchange(route, input)).body;

  return { service: options.service, send, open, call, exchange };
}

export type InternalClient = ReturnType<typeof createInternalClient>;
