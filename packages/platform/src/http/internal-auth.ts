import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError, ENVIRONMENTS, INTERNAL_CALLERS, INTERNAL_HEADERS, isInternalCaller, type Environment, type InternalCaller } from '@connectivity/contracts';
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
 * The callers a service knows, by the SHA-256 of their credential: a service holds only the
 * digests (`INTERNAL_CALLERS`), never a caller's token, so a service taken over cannot call
 * another one as its callers (docs/decisions/0222-internal-calls-with-a-credential-per-caller.md).
 */
export type InternalCallers = ReadonlyMap<InternalCaller, Buffer>;

/** Every caller, for a process tree that shares one token (`pnpm start`, the tests): no INTERNAL_CALLERS. */
export const EVERY_CALLER = '*';

/** The SHA-256 (hex) of a credential: what a service is told of a caller (`INTERNAL_CALLERS`). */
export const credentialDigest = (token: string): string => digest(token).toString('hex');

/** `INTERNAL_CALLERS`: `name=<sha256 hex>` pairs, comma-separated; an error names what is wrong. */
export function parseInternalCallers(text: string): InternalCallers | string {
  const callers = new Map<InternalCaller, Buffer>();
  for (const entry of text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [name = '', hex = ''] = entry.split('=').map((part) => part.trim());
    if (!isInternalCaller(name)) return `unknown caller "${name}" (callers: ${INTERNAL_CALLERS.join(', ')})`;
    if (!/^[0-9a-f]{64}$/i.test(hex)) return `${name}: the SHA-256 of its token, as 64 hex characters`;
    if (callers.has(name)) return `${name} is named twice`;
    callers.set(name, Buffer.from(hex, 'hex'));
  }
  return callers.size > 0 ? callers : 'names no caller';
}

export interface InternalAuthOptions {
  /** This process's own token: with no `callers`, it is every caller's (one process tree, one token). */
  token: string;
  /** The callers this service admits, by their credential's digest; each route then admits some of them. */
  callers?: InternalCallers | undefined;
}

/**
 * Services accept only calls that carry a known caller's credential (compared in constant time on
 * digests, so the length is not leaked either) and note which caller it is (`internalCallerOf`);
 * each route then admits the callers its contract names (`admitCallers`).
 */
export function requireInternalToken(options: InternalAuthOptions | string): RequestHandler {
  const { token, callers } = typeof options === 'string' ? { token: options, callers: undefined } : options;
  const known: [string, Buffer][] = callers ? [...callers] : [[EVERY_CALLER, digest(token)]];
  return (req, res, next) => {
    const presented = req.get(INTERNAL_HEADERS.token);
    const presentedDigest = presented ? digest(presented) : undefined;
    let caller: string | undefined;
    // Every entry is compared, so the time taken does not tell which caller matched.
    for (const [name, expected] of known) {
      const matches = presentedDigest !== undefined && timingSafeEqual(presentedDigest, expected);
      if (matches && caller === undefined) caller = name;
    }
    if (!caller) {
      next(new ApiError('key_invalid', { message: 'This service accepts only calls from the gateway and its peers.' }));
      return;
    }
    res.locals.internalCaller = caller;
    next();
  };
}

/** The caller whose credential a request carried (`*` for the one token of a process tree), if it passed. */
export const internalCallerOf = (res: Response): string | undefined => res.locals.internalCaller as string | undefined;

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
