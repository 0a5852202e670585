import { ApiError } from '@connectivity/contracts';

/** Replayed when the caller names neither `since` nor `event`. */
export const DEFAULT_REPLAY_WINDOW_SECONDS = 24 * 3_600;

export type ReplaySelection = { kind: 'event'; eventId: string } | { kind: 'since'; since: number };

/**
 * What `POST /v1/events/replay` replays (DECISIONS.md "Replay"): one event by id, every event
 * created at or after `since` (Unix seconds), or with neither the last 24 hours. Both at once is
 * ambiguous, so it is refused rather than guessed at.
 */
export function replaySelection(body: { since?: number | undefined; event?: string | undefined }, nowSeconds: number): ReplaySelection {
  if (body.event !== undefined && body.since !== undefined) {
    throw new ApiError('invalid_parameter', {
      param: 'event',
      message: 'Give either `event` (one event) or `since` (every event from then on), not both.',
    });
  }
  if (body.event !== undefined) return { kind: 'event', eventId: body.event };
  return { kind: 'since', since: body.since ?? nowSeconds - DEFAULT_REPLAY_WINDOW_SECONDS };
}
