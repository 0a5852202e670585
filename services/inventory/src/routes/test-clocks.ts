import { contract, isApiError } from '@connectivity/contracts';
import { claimOf, getCaller, type CursorCodec } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import type { Response } from 'express';
import { advanceTestClock, type AdvanceTestClockDeps } from '../use-cases/advance-test-clock.ts';
import { createTestClock } from '../use-cases/create-test-clock.ts';
import { deleteTestClock } from '../use-cases/delete-test-clock.ts';
import { getTestClock } from '../use-cases/get-test-clock.ts';
import { listTestClocks } from '../use-cases/list-test-clocks.ts';

const s = initServer();

export type TestClockRoutesDeps = AdvanceTestClockDeps & { cursors: CursorCodec };

/** The public test clock routes: create, list, read, delete, advance. */
export function testClockRouter(deps: TestClockRoutesDeps) {
  return s.router(contract.testClocks, {
    createTestClock: async ({ body, res }) => ({ status: 201, body: await createTestClock(deps, getCaller(res), body ?? {}, claimOf(res)) }),
    listTestClocks: async ({ query, res }) => ({ status: 200, body: await listTestClocks(deps.knex, deps.cursors, getCaller(res), query) }),
    getTestClock: async ({ params, res }) => ({ status: 200, body: await getTestClock(deps.knex, getCaller(res), params.id) }),
    deleteTestClock: async ({ params, res }) => ({ status: 200, body: await deleteTestClock(deps, getCaller(res), params.id, claimOf(res)) }),
    advanceTestClock: async ({ params, body, res }) => {
      try {
        return { status: 200, body: await advanceTestClock(deps, getCaller(res), params.id, body.frozen_time, claimOf(res)) };
      } catch (error) {
        retryLaterIfAdvancing(res, error);
        throw error;
      }
    },
  });
}

/**
 * An advance refused because another is under way is worth retrying in a moment; `Retry-After`
 * says so, and keeps the refusal out of the idempotency records, so a retry with the same key runs.
 */
function retryLaterIfAdvancing(res: Response, error: unknown): void {
  if (isApiError(error) && error.code === 'invalid_state_transition') res.setHeader('Retry-After', '1');
}
