import { ApiError, type Environment, type TestClock, type TestClockStatus } from '@connectivity/contracts';

/** A test clock as inventory keeps it: the public fields, its owner, and the advance under way if any. */
export interface TestClockRecord {
  id: string;
  account_id: string;
  environment: Environment;
  name: string | null;
  frozen_time: number;
  status: TestClockStatus;
  /** Names the advance that set `advancing`; only that advance may finish it. */
  advance_token: string | null;
  advance_to: number | null;
  /** Real time (ms) after which an unfinished advance is taken for dead: its holder crashed. */
  advance_lease_until: number | null;
  created_at: number;
  deleted_at: number | null;
}

/** The fields of a clock no advance holds: ready, no token, no target, no lease. */
export const NO_ADVANCE = { status: 'ready', advance_token: null, advance_to: null, advance_lease_until: null } as const satisfies Partial<TestClockRecord>;

/** How long an advance may run before another may take the clock over; far beyond any real advance. */
export const ADVANCE_LEASE_MS = 60_000;

/**
 * The status a caller sees. An advance whose lease ran out never committed anything (its effects
 * and the new time commit together), so the clock is ready at its old time.
 */
export function effectiveStatus(clock: Pick<TestClockRecord, 'status' | 'advance_lease_until'>, nowMs: number): TestClockStatus {
  return clock.status === 'advancing' && clock.advance_lease_until !== null && clock.advance_lease_until > nowMs ? 'advancing' : 'ready';
}

export function toPublicTestClock(clock: TestClockRecord, nowMs: number): TestClock {
  return {
    object: 'test_clock',
    id: clock.id,
    name: clock.name,
    frozen_time: clock.frozen_time,
    status: effectiveStatus(clock, nowMs),
    created_at: clock.created_at,
  };
}

/**
 * Whether an advance to `target` may start now: a clock only moves forward, and one advance at a
 * time (a second one meanwhile is told to come back once the clock is ready).
 */
export function assertCanAdvance(clock: TestClockRecord, target: number, nowMs: number): void {
  if (target <= clock.frozen_time) {
    throw new ApiError('invalid_parameter', {
      param: 'frozen_time',
      message: `A test clock only moves forward: \`frozen_time\` must be later than the clock's current time, ${clock.frozen_time}.`,
    });
  }
  if (effectiveStatus(clock, nowMs) === 'advancing') {
    throw new ApiError('invalid_state_transition', {
      message: 'The test clock is advancing; advance it again once its status is `ready`.',
    });
  }
}

/** The instant of a clock time (Unix seconds), for event times. */
export const clockInstant = (seconds: number): Date => new Date(seconds * 1000);

/**
 * When an eSIM expired during an advance: at its `expires_at`, as it would have in real time,
 * never before the clock's time when the advance began (nothing is dated in a clock's past).
 */
export const expiryTimeOnClock = (expiresAt: number, clockTime: number): number => Math.max(expiresAt, clockTime);

/** Test clocks are sandbox objects. The gateway refuses live keys on their routes; this refuses them here too. */
export function assertSandboxCaller(environment: Environment, param?: string): void {
  if (environment === 'test') return;
  throw new ApiError('live_key_test_resource', {
    ...(param !== undefined && { param }),
    message: 'Test clocks are sandbox objects: use the sk_test_ key of the account.',
  });
}

export const testClockNotFound = (param = 'id'): ApiError => new ApiError('resource_not_found', { param, message: 'No such test clock.' });
