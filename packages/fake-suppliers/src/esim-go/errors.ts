import type { Response } from 'express';
import { markGenericError } from '../shared/exchange.ts';

/** eSIM Go's one error body: `{"message": "..."}` (rate-limit guide). */
export function failure(res: Response, status: number, message: string): void {
  res.status(status).json({ message });
}

export const badRequest = (res: Response, message: string) => failure(res, 400, message);

/** EG-12: a missing or wrong API key is 403 `{"message":"Forbidden"}` everywhere. */
export function forbidden(res: Response): void {
  markGenericError(res, 'EG-12');
  failure(res, 403, 'Forbidden');
}

/** An ICCID or order of another organisation (or none): the documents' 403 "not accessible by the user". */
export const notAccessible = (res: Response, what: string) => failure(res, 403, `${what} is not accessible by the user`);

export function notFound(res: Response): void {
  markGenericError(res, 'EG-19');
  failure(res, 404, 'Not Found');
}

/** EG-17: 429 with Retry-After: 1. */
export function rateLimitExceeded(res: Response): void {
  markGenericError(res, 'EG-17');
  res.status(429).set('Retry-After', '1').json({ message: 'Rate limit exceeded' });
}

/** Injected server errors; 503 is the documents' "Processing … use the Retry-After header". */
export function serverError(res: Response, status: number): void {
  markGenericError(res, 'fault');
  if (status === 503) res.set('Retry-After', '1');
  res.status(status).json({ message: status === 503 ? 'Processing - Please come back later' : 'Server Error' });
}

/**
 * The documents' 503 "Processing - Please come back later or use the *Retry-After* (seconds)
 * header": the order was taken and is not done yet (the `processing` fault).
 */
export function stillProcessing(res: Response, retryAfterSeconds: number): void {
  res.status(503).set('Retry-After', String(retryAfterSeconds)).json({ message: 'Processing' });
}
