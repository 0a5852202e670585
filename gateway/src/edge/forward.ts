import { context, propagation } from '@opentelemetry/api';
import { ApiError, INTERNAL_HEADERS, type ServiceName } from '@connectivity/contracts';
import type { Logger } from '@connectivity/platform';
import type { StoredResponse } from '../db/idempotency-repository.ts';

export interface ForwardIdentity {
  accountId: string;
  environment: string;
  keyId: string;
}

export interface ForwardRequest {
  service: ServiceName;
  method: string;
  /** The public path and query, unchanged. */
  pathWithQuery: string;
  body: Buffer | undefined;
  identity: ForwardIdentity;
  requestId: string;
  /** The version this request is served at; services validate the contract's headers too. */
  serviceVersion: string;
  /** The caller's Idempotency-Key on mutating routes, which the contract requires downstream. */
  idempotencyKey?: string | undefined;
}

/** How a forward ended when no response came back. `notSent`: the service certainly did not run. */
export class UpstreamFailure extends Error {
  override readonly name = 'UpstreamFailure';
  readonly notSent: boolean;
  readonly apiError: ApiError;
  constructor(apiError: ApiError, notSent: boolean, cause: unknown) {
    super(apiError.message, { cause });
    this.apiError = apiError;
    this.notSent = notSent;
  }
}

// Errors that mean the connection was never made, so the request cannot have been processed.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
// What is passed on from a service's response; the edge sets the rest itself.
const PASSED_HEADERS = ['content-type', 'location'];

export interface Forwarder {
  forward(request: ForwardRequest): Promise<StoredResponse>;
}

/**
 * Sends a request to the service that owns the route, with the identity, the request id and the
 * W3C trace context in headers, and gives up after `timeoutMs`. A service that cannot be reached
 * or does not answer in time becomes `internal_error` (500) with a message saying which, never
 * a hang; a service error that is not the catalogue's error object is replaced by one.
 */
export function createForwarder(options: {
  serviceUrls: Record<Exclude<ServiceName, 'gateway'>, string>;
  internalToken: string;
  timeoutMs: number;
  /** Public base URL, for the `link` of errors the gateway writes itself. */
  baseUrl: string;
  logger: Logger;
}): Forwarder {
  return {
    async forward(request) {
      if (request.service === 'gateway') throw new Error('gateway routes are not forwarded');
      const base = options.serviceUrls[request.service].replace(/\/+$/, '');
      const headers: Record<string, string> = {
        accept: 'application/json',
        [INTERNAL_HEADERS.token]: options.internalToken,
        [INTERNAL_HEADERS.accountId]: request.identity.accountId,
        [INTERNAL_HEADERS.environment]: request.identity.environment,
        [INTERNAL_HEADERS.keyId]: request.identity.keyId,
        [INTERNAL_HEADERS.requestId]: request.requestId,
        'service-version': request.serviceVersion,
        ...(request.idempotencyKey ? { 'idempotency-key': request.idempotencyKey } : {}),
      };
      propagation.inject(context.active(), headers);
      const hasBody = request.body !== undefined && request.body.length > 0;
      if (hasBody) headers['content-type'] = 'application/json';

      let response: Response;
      let text: string;
      try {
        response = await fetch(base + request.pathWithQuery, {
          method: request.method,
          headers,
          body: hasBody ? new Uint8Array(request.body ?? []) : undefined,
          signal: AbortSignal.timeout(options.timeoutMs),
          redirect: 'manual',
        });
        text = await response.text();
      } catch (error) {
        throw classify(error, request.service, options.logger);
      }

      const passed: Record<string, string> = {};
      for (const name of PASSED_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) passed[name] = value;
      }
      if (response.status >= 400 && !isErrorObject(text)) {
        options.logger.error({ service: request.service, status: response.status }, 'service answered without an error object');
        const body = new ApiError('internal_error').toBody(options.baseUrl);
        return { status: 500, headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) };
      }
      return { status: response.status, headers: passed, body: text };
    },
  };
}

function classify(error: unknown, service: string, logger: Logger): UpstreamFailure {
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    logger.error({ service }, 'service did not answer in time');
    return new UpstreamFailure(
      new ApiError('internal_error', {
        message: 'The service handling this request did not answer in time. Retry later with the same Idempotency-Key.',
      }),
      false,
      error,
    );
  }
  const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code;
  logger.error({ service, err: error instanceof Error ? error.message : String(error), code }, 'service unreachable');
  return new UpstreamFailure(
    new ApiError('internal_error', { message: 'The service handling this request is unavailable. Retry later.' }),
    code !== undefined && NOT_SENT_CODES.has(code),
    error,
  );
}

function isErrorObject(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown } };
    return typeof parsed.error?.code === 'string';
  } catch {
    return false;
  }
}
