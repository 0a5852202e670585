import { ApiError, type ServiceVersion } from '@connectivity/contracts';
import type { Request, Response } from 'express';
import { pinVersion } from '../db/accounts-repository.ts';
import type { Identity } from '../domain/identity.ts';
import { chooseVersion, deprecationHeaders } from '../domain/versions.ts';
import { setHeaders } from '../use-cases/response-headers.ts';
import type { EdgeDeps } from './deps.ts';

/**
 * Step 2 of record 0255: the version the request is served at, `Service-Version` when sent (400
 * `unsupported_version` when not served), else the account's pin, else the newest; said in the
 * `Service-Version` header, with the deprecation headers when the timetable has the version.
 */
export function chooseServedVersion(deps: Pick<EdgeDeps, 'timetable' | 'deprecationLink'>, req: Request, res: Response, identity: Identity): ServiceVersion {
  const choice = chooseVersion(req.get('service-version'), identity.pinnedVersion);
  if (!choice.ok) throw new ApiError('unsupported_version', { param: 'Service-Version' });
  res.setHeader('Service-Version', choice.version);
  setHeaders(res, deprecationHeaders(deps.timetable[choice.version], deps.deprecationLink));
  return choice.version;
}

/**
 * Pins the version an account's first call is served at (the first pin wins, whichever instance
 * wrote it) and updates this instance's cached identities of the account's keys. Called only
 * while the identity has no pin, so a pinned account's request awaits nothing here.
 */
export async function pinVersionOnFirstCall(deps: Pick<EdgeDeps, 'knex' | 'edge'>, identity: Identity, version: string): Promise<void> {
  const pinned = await pinVersion(deps.knex, identity.accountId, version);
  deps.edge.keys.patchAccount(identity.accountId, { pinnedVersion: pinned });
}
