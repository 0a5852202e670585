import { ApiError, type Environment } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';

/**
 * The test/live boundary on one resource: another account's resource does not exist for the
 * caller (404, so ids cannot be probed); the caller's own in the other environment is a 403
 * that names the mix-up.
 */
export function assertCanReach(resource: { account_id: string; environment: Environment }, caller: Caller, param = 'id', what = 'eSIM'): void {
  if (resource.account_id !== caller.accountId) throw notFound(param, what);
  if (resource.environment === caller.environment) return;
  throw caller.environment === 'test'
    ? new ApiError('test_key_live_resource', { message: `This ${what} is live; a test key reaches simulated resources only.` })
    : new ApiError('live_key_test_resource', { message: `This ${what} is simulated; a live key reaches live resources only.` });
}

export const notFound = (param = 'id', what = 'eSIM'): ApiError => new ApiError('resource_not_found', { param, message: `No such ${what}.` });
