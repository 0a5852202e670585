import { ApiError, type Environment } from '@connectivity/contracts';

/**
 * The /v1/test/* helpers act on simulated resources only. The gateway already refuses live keys;
 * the simulator refuses them too, so a mis-routed call can never touch live data.
 */
export function assertTestEnvironment(environment: Environment): void {
  if (environment !== 'test') {
    throw new ApiError('live_key_test_resource', {
      message: 'The /v1/test endpoints are for test keys only; use the sk_test_ key of the account.',
    });
  }
}
