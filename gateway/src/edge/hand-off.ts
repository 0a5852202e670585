import type { ServiceVersion } from '@connectivity/contracts';
import type { Response } from 'express';
import type { Identity } from '../domain/identity.ts';
import { isServedVersion } from '../domain/versions.ts';

/** Where the edge leaves the version a gateway-owned route is served at, for its router. */
const VERSION_LOCAL = 'serviceVersion';

/**
 * A route the gateway owns leaves the edge for its router (mounted after the edge) with the
 * caller (`getCaller`) and the version (`servedVersion`) on the response's locals. The caller is
 * the identity's own, made when the key was read: nothing is built per request.
 */
export function handOff(res: Response, identity: Identity, version: ServiceVersion): void {
  res.locals.caller = identity.caller;
  res.locals[VERSION_LOCAL] = version;
}

/** The version the edge chose for this request (a gateway-owned route's router reads it). */
export function servedVersion(res: Response): ServiceVersion {
  const version: unknown = res.locals[VERSION_LOCAL];
  if (typeof version !== 'string' || !isServedVersion(version)) throw new Error('the edge chose no version for this request');
  return version;
}
