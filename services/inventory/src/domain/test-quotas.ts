import { ApiError } from '@connectivity/contracts';

// The quotas of test data (record 0212): each refusal names its limit and the figure in force, so
// an integrator can tell which one they met and what to do about it.

export const testClockQuotaExceeded = (limit: number): ApiError =>
  new ApiError('quota_exceeded', {
    message:
      `Quota exceeded: an account may have at most ${limit} test clocks (the limit TEST_CLOCKS_PER_ACCOUNT is ${limit}). ` +
      'Delete test clocks you no longer need before creating another.',
  });

export const testEsimsQuotaExceeded = (limit: number, quantity: number): ApiError =>
  new ApiError('quota_exceeded', {
    message:
      `Quota exceeded: an account may create at most ${limit} test eSIMs in a UTC day (the limit TEST_ESIMS_PER_DAY is ${limit}); ` +
      `this order of ${quantity} would pass it. Nothing was created. Live orders have no such quota.`,
  });
