import { ApiError, INTERNAL_HEADERS } from '@connectivity/contracts';

export interface InternalTarget {
  /** The owning service's base URL. */
  url: string;
  internalToken: string;
  timeoutMs: number;
}

/**
 * An operator setting owned by another service, sent to that service's internal route. A
 * service that is down or refuses answers internal_error, saying that nothing was changed there.
 */
export async function putToService(target: InternalTarget & { service: string; requestId: string }, pathname: string, body: unknown): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${target.url.replace(/\/+$/, '')}${pathname}`, {
      method: 'PUT',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        [INTERNAL_HEADERS.token]: target.internalToken,
        [INTERNAL_HEADERS.requestId]: target.requestId,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (error) {
    throw new ApiError('internal_error', { message: `The ${target.service} service is unavailable; the settings were not changed.`, cause: error });
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const detail = (parsed as { error?: { message?: string } } | undefined)?.error?.message;
    throw new ApiError('internal_error', {
      message: `The ${target.service} service refused the settings (HTTP ${response.status}).`,
      ...(detail !== undefined && { detail }),
    });
  }
  return parsed;
}
