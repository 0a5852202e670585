import { ApiError, INTERNAL_HEADERS, isErrorCode } from '@connectivity/contracts';
import type { InternalTarget } from './internal-put.ts';

interface ServiceError {
  error?: { code?: unknown; message?: unknown; param?: unknown; detail?: unknown };
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * An operator call answered by the owning service, sent to its internal route. The service's
 * own refusals (a bad filter, an unknown id, a move not allowed) reach the operator as they
 * are, so the CLI can say what to fix; a service that is down or fails answers internal_error.
 */
export async function forwardToService(
  target: InternalTarget & { service: string; requestId: string },
  method: 'GET' | 'POST',
  pathWithQuery: string,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${target.url.replace(/\/+$/, '')}${pathWithQuery}`, {
      method,
      headers: { accept: 'application/json', [INTERNAL_HEADERS.token]: target.internalToken, [INTERNAL_HEADERS.requestId]: target.requestId },
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (error) {
    throw new ApiError('internal_error', { message: `The ${target.service} service is unavailable.`, cause: error });
  }
  const parsed: unknown = await response.json().catch(() => undefined);
  if (response.ok) return parsed;
  const error = (parsed as ServiceError | undefined)?.error;
  if (response.status < 500 && error && isErrorCode(error.code)) {
    const param = text(error.param);
    const message = text(error.message);
    const detail = text(error.detail);
    throw new ApiError(error.code, { ...(param !== undefined && { param }), ...(message !== undefined && { message }), ...(detail !== undefined && { detail }) });
  }
  throw new ApiError('internal_error', { message: `The ${target.service} service failed (HTTP ${response.status}).`, ...(text(error?.message) !== undefined && { detail: text(error?.message) }) });
}
