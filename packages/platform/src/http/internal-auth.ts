import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, ENVIRONMENTS, INTERNAL_HEADERS, type Environment } from '@connectivity/contracts';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Who a call is made for: the account and environment of the API key the gateway authenticated,
 * and that key. The one type every hop carries it in: the gateway builds it, the internal client
 * sends it in internal headers, a service reads it back (`getCaller`) and hands it to its use
 * cases. Calls a service makes for itself (a worker's, the operator's) have no key.
 */
export interface Caller {
  accountId: string;
  environment: Environment;
  keyId?: string | undefined;
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
 * Reads the caller headers the gateway set. Operator and worker calls carry the internal token
 * but no caller; routes that act for a caller get it through `getCaller`, which
 * refuses a call without one.
 */
export const readCaller: RequestHandler = (req, res, next) => {
  const accountId = req.get(INTERNAL_HEADERS.accountId);
  const environment = req.get(INTERNAL_HEADERS.environment);
  const keyId = req.get(INTERNAL_HEADERS.keyId);
  if (accountId !== undefined || environment !== undefined) {
    if (!accountId || !isEnvironment(environment)) {
      next(new ApiError('key_missing', { message: 'The call carries an incomplete identity.' }));
      return;
    }
    res.locals.caller = { accountId, environment, keyId } satisfies Caller;
  }
  next();
};

/** The caller of a request that acts for one; a call without one is refused. */
export function getCaller(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new ApiError('key_missing', { message: 'The call carries no identity.' });
  return caller;
}

export const callerOf = (_req: Request, res: Response): Caller => getCaller(res);
