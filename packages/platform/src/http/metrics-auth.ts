import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import type { RequestHandler } from 'express';

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * `/metrics` behind a token of its own (`METRICS_TOKEN`, Prometheus' `authorization`): the
 * series name routes, accounts' volumes and queue depths, and the token that reads them opens
 * nothing else, so the scraper holds no caller's credential
 * (docs/decisions/0227-metrics-behind-a-token-of-their-own.md). Unset: no token is asked (a
 * process on a laptop; production requires it).
 */
export function requireMetricsToken(token: string | undefined): RequestHandler {
  if (!token) return (_req, _res, next) => next();
  const expected = digest(token);
  return (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    const presented = /^Bearer (.+)$/i.exec(header)?.[1];
    if (presented === undefined) {
      next(new ApiError('key_missing', { message: 'Metrics are read with `Authorization: Bearer <METRICS_TOKEN>`.' }));
      return;
    }
    next(timingSafeEqual(digest(presented), expected) ? undefined : new ApiError('key_invalid', { message: 'This is not the metrics token.' }));
  };
}
