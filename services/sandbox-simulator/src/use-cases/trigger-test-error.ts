import type { ApiError } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import { chosenError } from '../domain/chosen-error.ts';
import { assertTestEnvironment } from '../domain/sandbox-only.ts';

/** POST /v1/test/error: the error the caller chose, to be thrown as the answer. */
export function triggerTestError(caller: Caller, input: Parameters<typeof chosenError>[0]): ApiError {
  assertTestEnvironment(caller.environment);
  return chosenError(input);
}
