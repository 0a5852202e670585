import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { listOf } from '../schemas/list.ts';
import { unixSeconds } from '../schemas/primitives.ts';
import { deletedTestClockSchema, testClockSchema } from '../schemas/test-clock.ts';
import { titled } from '../schemas/titled.ts';
import { operation } from './operation.ts';
import { paginationQuery } from './params.ts';

const c = initContract();

export const createTestClockBodySchema = titled(
  'CreateTestClockRequest',
  z
    .object({
      frozen_time: unixSeconds.describe('The clock’s starting time, in Unix seconds; default now.'),
      name: z.string().min(1).max(300).describe('A label for yourself.'),
    })
    .partial()
    .strict(),
);

export const advanceTestClockBodySchema = titled(
  'AdvanceTestClockRequest',
  z
    .object({
      frozen_time: unixSeconds.describe('The new time of the clock, in Unix seconds: later than its current `frozen_time`.'),
    })
    .strict(),
);

const testClockPathParams = z.object({ id: z.string().min(1).max(200).describe('The test clock id (`clock_...`).') });

// Test clocks belong with the eSIMs they drive, so that an advance expires them in its own transaction.
const owner = { service: 'inventory', scopes: ['test_helpers'], testOnly: true } as const;
const resourceErrors = ['live_key_test_resource', 'resource_not_found'] as const;

/** Test clocks (Stripe's model), sandbox-only, owned by the inventory service. */
export const testClockRoutes = c.router({
  createTestClock: {
    path: '/v1/test/clocks',
    summary: 'Create a test clock',
    description:
      'Creates a clock frozen at `frozen_time` (default now). eSIMs bought with `test_clock` set to its id live in its ' +
      'time: they are created, change state and expire at the clock’s time, and only an advance moves it. Test keys only. ' +
      'An account has at most 100 clocks (unless the operator set another figure); one more gives 403 `quota_exceeded`.',
    body: createTestClockBodySchema.optional(),
    ...operation('POST', { 201: testClockSchema }, { ...owner, errors: ['invalid_parameter', 'live_key_test_resource', 'quota_exceeded'] }),
  },
  listTestClocks: {
    path: '/v1/test/clocks',
    summary: 'List test clocks',
    description: 'Lists the test clocks of the account, newest first. Deleted clocks are not listed. Test keys only.',
    query: paginationQuery,
    ...operation('GET', { 200: listOf('TestClockList', testClockSchema) }, { ...owner, errors: ['invalid_parameter', 'live_key_test_resource'] }),
  },
  getTestClock: {
    path: '/v1/test/clocks/:id',
    summary: 'Get a test clock',
    description: 'Reads one test clock. Test keys only.',
    pathParams: testClockPathParams,
    ...operation('GET', { 200: testClockSchema }, { ...owner, errors: resourceErrors }),
  },
  deleteTestClock: {
    path: '/v1/test/clocks/:id',
    summary: 'Delete a test clock',
    description:
      'Deletes the clock. Its eSIMs stay, frozen at the clock’s last time: they keep `test_clock`, no longer expire ' +
      'by time, and their changes are dated at that time. Test keys only.',
    pathParams: testClockPathParams,
    ...operation('DELETE', { 200: deletedTestClockSchema }, { ...owner, errors: resourceErrors }),
  },
  advanceTestClock: {
    path: '/v1/test/clocks/:id/advance',
    summary: 'Advance a test clock',
    description:
      'Moves the clock to `frozen_time`, which must be later than its current time. Every eSIM of the clock whose ' +
      '`expires_at` the clock passes expires (one `esim.expired` each, dated at its `expires_at`) before the answer. ' +
      'The status is `advancing` meanwhile; a second advance then is 409 `invalid_state_transition`. Test keys only.',
    pathParams: testClockPathParams,
    body: advanceTestClockBodySchema,
    ...operation(
      'POST',
      { 200: testClockSchema },
      {
        ...owner,
        errors: ['missing_parameter', 'invalid_parameter', ...resourceErrors, 'invalid_state_transition'],
      },
    ),
  },
});
