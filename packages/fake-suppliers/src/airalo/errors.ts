import type { Response } from 'express';
import { markGenericError } from '../shared/exchange.ts';

/** Airalo's validation error: 422 with the failing fields (AIR-20: every endpoint, declared on some). */
export function invalidParameters(res: Response, fields: Record<string, string>): void {
  markGenericError(res, 'AIR-20');
  res.status(422).json({ data: fields, meta: { message: 'the parameter is invalid' } });
}

/** Airalo's 422 with an empty `data` and the reason in `meta.message` (refund errors). */
export function invalidRequest(res: Response, message: string): void {
  markGenericError(res, 'AIR-20');
  res.status(422).json({ data: [], meta: { message } });
}

/** Airalo's business error envelope, e.g. code 34 (invalid or out-of-stock package). */
export function businessError(res: Response, code: number, reason: string): void {
  markGenericError(res, 'AIR-20');
  res.status(422).json({ code, reason });
}

export function notFound(res: Response): void {
  markGenericError(res, 'AIR-17');
  res.status(404).json({ data: [], meta: { message: 'messages.resource_not_found' } });
}

/** AIR-18: the documented 401 shape; the message for a missing or expired token is not documented. */
export function unauthenticated(res: Response): void {
  markGenericError(res, 'AIR-18');
  res.status(401).json({ data: [], meta: { message: 'Unauthenticated.' } });
}

/** 429 as the usage page shows it: Laravel's throttle body and headers. */
export function tooManyAttempts(res: Response, verdict: { limit: number; resetAt: number }, now: number): void {
  markGenericError(res, 'AIR-16');
  const retryAfter = Math.max(1, Math.ceil((verdict.resetAt - now) / 1000));
  res
    .status(429)
    .set({
      'Retry-After': String(retryAfter),
      'X-RateLimit-Limit': String(verdict.limit),
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(Math.ceil(verdict.resetAt / 1000)),
    })
    .json({ message: 'Too Many Attempts.' });
}

/** Injected server errors: Laravel's generic body. */
export function serverError(res: Response, status: number): void {
  markGenericError(res, 'fault');
  res.status(status).json({ message: status === 503 ? 'Service Unavailable' : 'Server Error' });
}
