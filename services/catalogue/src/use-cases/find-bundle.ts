import { ApiError, type InternalBundle } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { toInternalBundle } from '../domain/bundle.ts';
import { assertLiveOrdering, liveCatalogue, type CatalogueDeps } from './live-catalogue.ts';

const notFound = (name: string) => new ApiError('resource_not_found', { param: 'name', message: `No bundle named \`${name}\`.` });

/** A bundle by name for an order in the caller's environment, retired or not; 404 when no catalogue knows it. */
export async function findBundle(deps: CatalogueDeps, caller: Caller, name: string): Promise<InternalBundle> {
  const sandbox = await deps.bundles.get(name);
  if (caller.environment === 'test') {
    if (!sandbox) throw notFound(name);
    return toInternalBundle(sandbox, false, ['test']);
  }
  await assertLiveOrdering(deps, caller.accountId);
  // With no supplier configured, live orders are refused (record 0256).
  if (deps.suppliers.live.vendor === undefined) {
    throw new ApiError('supplier_refused', { message: 'No live supplier is configured: live orders cannot be placed.' });
  }
  const live = (await liveCatalogue(deps)).find((b) => b.name === name);
  if (live) {
    return toInternalBundle(live, true, sandbox ? ['test', 'live'] : ['live']);
  }
  // Known only to the sandbox: the order is refused as capability_not_live by the caller.
  if (sandbox) return toInternalBundle(sandbox, false, ['test']);
  throw notFound(name);
}
