import { ApiError } from '@connectivity/contracts';

/** Replayed when the caller names neither `since` nor `event`. */
export const DEFAULT_REPLAY_WINDOW_SECONDS = 24 * 3_600;

/** The oldest a replay may reach back (record 0257: a replay covers at most 30 days). */
export const MAX_REPLAY_WINDOW_SECONDS = 30 * 86_400;

export type ReplaySelection = { kind: 'event'; eventId: string } | { kind: 'since'; since: number };

/**
 * What `POST /v1/events/replay` replays (record 0253): one event by id, every event
 * created at or after `since` (Unix seconds, at most 30 days back), or with neither the last 24
 * hours. Both at once is ambiguous, so it is refused rather than guessed at.
 */
export function replaySelection(body: { since?: number | undefined; event?: string | undefined }, nowSeconds: number): ReplaySelection {
  if (body.event !== undefined && body.since !== undefined) {
    throw new ApiError('invalid_parameter', {
      param: 'event',
      message: 'Give either `event` (one event) or `since` (every event from then on), not both.',
    });
  }
  if (body.event !== undefined) return { kind: 'event', eventId: body.event };
  const oldest = nowSeconds - MAX_REPLAY_WINDOW_SECONDS;
  if (body.since !== undefined && body.since < oldest) {
    throw new ApiError('invalid_parameter', {
      param: 'since',
      message: `A replay reaches back at most 30 days: since must be ${oldest} or later.`,
    });
  }
  return { kind: 'since', since: body.since ?? nowSeconds - DEFAULT_REPLAY_WINDOW_SECONDS };
}

/**
 * A window that holds more events than one replay may queue is refused, not cut short: the
 * caller learns the `since` from which the newest events fit (`fitsFrom`), or is told that even
 * one second of them does not.
 */
export function tooManyEvents(max: number, fitsFrom: number, nowSeconds: number): ApiError {
  const remedy =
    fitsFrom <= nowSeconds
      ? `The events created at or after ${fitsFrom} fit: replay with since=${fitsFrom}, or replay single events with \`event\`.`
      : 'Replay single events with `event`.';
  return new ApiError('invalid_parameter', {
    param: 'since',
    message: `This replay would queue more than ${max} events; a replay queues at most ${max}. ${remedy}`,
  });
}

/**
 * A second replay of the same account and environment while one runs is refused with 409 (not
 * merged: two windows would need a union and one cap); Retry-After says when to look again, and
 * keeps the refusal out of the Idempotency-Key's record, so a retry with the same key is run.
 */
export function replayRunning(progress: { total: number; done: number }, environment: string): ApiError {
  return new ApiError('already_exists', {
    message: `A replay of this account's ${environment} events is already running (${progress.done} of ${progress.total} events queued); retry once it has finished.`,
    retryAfter: String(REPLAY_RUNNING_RETRY_AFTER_SECONDS),
  });
}

export const REPLAY_RUNNING_RETRY_AFTER_SECONDS = 10;
