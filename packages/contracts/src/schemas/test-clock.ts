import { z } from 'zod';
import { TEST_CLOCK_STATUSES } from './enums.ts';
import { ID_PREFIXES, idSchema, unixSeconds } from './primitives.ts';
import { titled } from './titled.ts';

/** A test clock (Stripe's model): a frozen time that the eSIMs ordered on it live in, moved only by an advance. */
export const testClockSchema = titled(
  'TestClock',
  z.object({
    object: z.literal('test_clock'),
    id: idSchema(ID_PREFIXES.testClock),
    name: z.string().nullable().describe('A label for yourself; null when none was given.'),
    frozen_time: unixSeconds.describe('The time of the clock, in Unix seconds: its eSIMs are created, change and expire at it.'),
    status: z.enum(TEST_CLOCK_STATUSES).describe('`advancing` while an advance moves the clock’s eSIMs through time, `ready` otherwise.'),
    created_at: unixSeconds.describe('When the clock was created, in real time.'),
  }),
);
export type TestClock = z.infer<typeof testClockSchema>;

export const deletedTestClockSchema = titled(
  'DeletedTestClock',
  z.object({
    object: z.literal('test_clock'),
    id: idSchema(ID_PREFIXES.testClock),
    deleted: z.literal(true),
  }),
);
export type DeletedTestClock = z.infer<typeof deletedTestClockSchema>;
