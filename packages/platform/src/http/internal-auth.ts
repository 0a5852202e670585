import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, ENVIRONMENTS, INTERNAL_HEADERS, type Environment } from '@connectivity/contracts';
import type { Request, RequestHandler, Response } from 'express';

/** Who is calling, as authenticated by the gateway and forwarded in internal headers. */
export interface Identity {
  accountId: string;
  environment: Environment;
  /** The API key that made the call; absent on calls the service makes for itself. */
  keyId: string | undefined;
}

const isEnvironment = (value: string | undefined): value is Environment => ENVIRONMENTS.includes(value as Environment);

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Services accept only the gateway's (and their peers') calls: the shared internal token must
 * match (compared in constant time on hashes, so the length is not leaked either).
 */
export function requireInternalToken(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    const presented = req.get(INTERNAL_HEADERS.token);
    if (!presented || !timingSafeEqual(digest(presented), expected)) {
      next(new ApiError('key_invalid', { message: 'This service accepts only calls from the gateway.' }));
      return;
    }
    next();
  };
}

/**
 * Reads the identity headers the gateway set. Operator and worker calls carry the internal token
 * but no caller identity; routes that act for a caller get it through `getIdentity`, which
 * refuses a call without one.
 */
export const readIdentity: RequestHandler = (req, res, next) => {
  const accountId = req.get(INTERNAL_HEADERS.accountId);
  const environment = req.get(INTERNAL_HEADERS.environment);
  const keyId = req.get(INTERNAL_HEADERS.keyId);
  if (accountId !== undefined || environment !== undefined) {
    if (!accountId || !isEnvironment(environment)) {
      next(new ApiError('key_missing', { message: 'The call carries an incomplete identity.' }));
      return;
    }
    res.locals.identity = { accountId, environment, keyId } satisfies Identity;
  }
  next();
};

export function getIdentity(res: Response): Identity {
  const identity = res.locals.identity as Identity | undefined;
  if (!identity) throw new ApiError('key_missing', { message: 'The call carries no identity.' });
  return identity;
}

export const identityOf = (_req: Request, res: Response): Identity => getIdentity(res);
