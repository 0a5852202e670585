import { ApiError, type RouteEntry, type ServiceName } from '@connectivity/contracts';
import {
  createInternalClient,
  errorMessage,
  pathFor,
  UpstreamFailure,
  type Caller,
  type InternalClient,
  type Logger,
  type RawRequest,
  type StreamedResponse,
} from '@connectivity/platform';
import type { ForwardedResponse } from '../domain/forwarded-response.ts';

export { UpstreamFailure };
export type { ForwardedResponse };

export interface ForwardRequest {
  /** The contract route matched; the service's path is built from it, never taken from the request. */
  entry: RouteEntry;
  /** The path parameters as matched (decoded); they are encoded again into the forwarded path. */
  params: Record<string, string>;
  /** The query string without `?`, as the client sent it (validated against the contract). */
  search: string;
  body: Buffer | undefined;
  /** Who the call is for: the authenticated key's account, environment and id. */
  caller: Caller;
  /** The version this request is served at; services validate the contract's headers too. */
  serviceVersion: string;
  /** The Idempotency-Key as the edge validated it (mutating routes only): the owning service records it with its change. */
  idempotencyKey?: string | undefined;
  /** The caller's `Accept`; passed on only to a route that answers other media than JSON (`produces`). */
  accept?: string | undefined;
  /** The caller's `Last-Event-ID`; passed on only to a stream route. */
  lastEventId?: string | undefined;
}

// What is passed on from a service's response; the edge sets the rest itself.
const PASSED_HEADERS = ['content-type', 'location', 'retry-after', 'idempotent-replayed', 'cache-control', 'vary'];

/** An event stream as it comes from its service: status and headers now, the body as it is written. */
export type OpenStream = Omit<StreamedResponse, 'headers'> & { headers: Record<string, string>; stream: true };

export interface Forwarder {
  forward(request: ForwardRequest): Promise<ForwardedResponse>;
  /**
   * A stream route (`metadata.stream`): a success passes on as it comes (an `OpenStream`), any
   * other answer is read whole as `forward` reads it. `signal` ends the call (the client left).
   */
  stream(request: ForwardRequest, signal: AbortSignal): Promise<OpenStream | ForwardedResponse>;
}

type BackendService = Exclude<ServiceName, 'gateway'>;

/**
 * Sends a request to the service that owns the route through the platform's internal client:
 * the path is the route's own with its parameters encoded, the caller goes in internal
 * headers, and the call gives up after `timeoutMs`. A service that cannot be reached or does not
 * answer in time is an `UpstreamFailure` for the caller to classify; a service error that is
 * not the catalogue's error object is replaced by one.
 */
export function createForwarder(options: {
  serviceUrls: Record<BackendService, string>;
  internalToken: string;
  timeoutMs: number;
  /** Public base URL, for the `link` of errors the gateway writes itself. */
  baseUrl: string;
  logger: Logger;
}): Forwarder {
  const clients = new Map<BackendService, InternalClient>();
  const clientFor = (service: BackendService): InternalClient => {
    let client = clients.get(service);
    if (!client) {
      client = createInternalClient({ service, baseUrl: options.serviceUrls[service], internalToken: options.internalToken, timeoutMs: options.timeoutMs });
      clients.set(service, client);
    }
    return client;
  };

  const serviceOf = (request: ForwardRequest): BackendService => {
    const service = request.entry.metadata.service;
    if (service === 'gateway') throw new Error('gateway routes are not forwarded');
    return service;
  };

  const rawRequest = (request: ForwardRequest): RawRequest => {
    const hasBody = request.body !== undefined && request.body.length > 0;
    return {
      method: request.entry.route.method,
      path: pathFor(request.entry.route.path, request.params),
      search: request.search,
      caller: request.caller,
      headers: {
        'service-version': request.serviceVersion,
        ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey } : {}),
        ...(request.accept && request.entry.metadata.produces ? { accept: request.accept } : {}),
        ...(request.lastEventId && request.entry.metadata.stream ? { 'last-event-id': request.lastEventId } : {}),
      },
      body: hasBody ? request.body : undefined,
    };
  };

  const logFailure = (service: BackendService, error: unknown) => {
    if (error instanceof UpstreamFailure) {
      options.logger.error({ service, timed_out: error.timedOut, not_sent: error.notSent, err: errorMessage(error.cause) }, 'service call failed');
    }
  };

  const passedHeaders = (headers: Record<string, string>) => {
    const passed: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = headers[name];
      if (value !== undefined) passed[name] = value;
    }
    return passed;
  };

  return {
    async forward(request) {
      const service = serviceOf(request);
      let response;
      try {
        response = await clientFor(service).send(rawRequest(request));
      } catch (error) {
        logFailure(service, error);
        throw error;
      }
      return answer(service, response.status, response.headers, response.bytes, () => response.body);
    },

    async stream(request, signal) {
      const service = serviceOf(request);
      let response;
      try {
        response = await clientFor(service).open(rawRequest(request), signal);
      } catch (error) {
        // Aborted because the client left: not a failure of the service.
        if (!signal.aborted) logFailure(service, error);
        throw error;
      }
      if (response.status === 200 && (response.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        return { status: 200, headers: passedHeaders(response.headers), body: response.body, stream: true };
      }
      // An error (or anything else) is short: read whole and checked like any answer.
      const bytes = Buffer.from(await response.body.arrayBuffer());
      return answer(service, response.status, response.headers, bytes, () => bytes.toString('utf8'));
    },
  };

  /** The service's answer as the edge passes it on; `text` is decoded only for an error's check. */
  function answer(service: BackendService, status: number, headers: Record<string, string>, bytes: Buffer, text: () => string): ForwardedResponse {
    if (status >= 400 && !isErrorObject(text())) {
      options.logger.error({ service, status }, 'service answered without an error object');
      const body = new ApiError('internal_error').toBody(options.baseUrl);
      return { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
    }
    // The service's bytes pass on as they came (JSON and images alike: nothing to decode and encode again).
    return { status, headers: passedHeaders(headers), body: bytes };
  }
}

/** What the client is told when a forward got no answer; the outcome is unknown unless `notSent`. */
export function upstreamError(error: UpstreamFailure): ApiError {
  return new ApiError('internal_error', {
    message: error.timedOut
      ? 'The service handling this request did not answer in time. Retry later with the same Idempotency-Key.'
      : 'The service handling this request is unavailable. Retry later with the same Idempotency-Key.',
  });
}

function isErrorObject(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string';
  } catch {
    return false;
  }
}
