import { ApiError, type ReplayResult } from '@connectivity/contracts';
import { signalAfterCommit, type Bus, type Caller, type Database, type IdempotencyClaim, type Logger } from '@connectivity/platform';
import { replayRunning, replaySelection, tooManyEvents } from '../domain/replay-selection.ts';
import { enqueueEventReplay } from '../db/deliveries-repository.ts';
import { isUniqueViolation } from '../db/endpoints-repository.ts';
import { findEvent } from '../db/events-repository.ts';
import { insertReplay, planReplay, REPLAYS_SIGNAL, runningReplay } from '../db/replays-repository.ts';
import { appendReplayEntries } from '../db/stream-repository.ts';
import { announceStreamGrowth } from '../consumers/stream-notices.ts';

export interface ReplayDeps {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** The most events one replay may queue (REPLAY_MAX_EVENTS). */
  maxEvents: number;
}

/**
 * Queues past events of the caller's account and environment for delivery again, with the same
 * ids, each attempt signed afresh when it is sent. One event is queued at once (and appended to
 * the open event streams, for a test event). A window is queued as a replay record that the
 * replay worker works through in batches: the answer counts what it will queue, and a window
 * that holds more than `maxEvents` is refused. Idempotent: the record (or the one event's
 * deliveries) commits with the answer (the claim).
 */
export async function replayEvents(
  deps: ReplayDeps,
  caller: Caller,
  body: { since?: number | undefined; event?: string | undefined },
  claim: IdempotencyClaim,
): Promise<ReplayResult> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  const scope = { accountId: caller.accountId, environment: caller.environment };
  const selection = replaySelection(body, nowSeconds);
  if (selection.kind === 'event') return replayOne(deps, scope, selection.eventId, claim);

  const { since } = selection;
  const running = await runningReplay(deps.db.knex, scope);
  if (running) throw replayRunning(running, scope.environment);
  try {
    return await claim.answerInTransaction(deps.db.knex, 200, async (trx): Promise<ReplayResult> => {
      // One more than allowed, to tell "too many" from "exactly the cap".
      const plan = await planReplay(trx, scope, since, deps.maxEvents + 1);
      if (plan.events > deps.maxEvents) throw tooManyEvents(deps.maxEvents, (plan.oldest ?? nowSeconds) + 1, nowSeconds);
      if (plan.events > 0) {
        await insertReplay(trx, scope, since, plan.events);
        signalAfterCommit(trx, REPLAYS_SIGNAL);
      }
      return { object: 'replay', queued: plan.matched, endpoints: plan.endpoints, since, event: null };
    });
  } catch (error) {
    // Another replay of the scope began between the check and the insert.
    if (isUniqueViolation(error)) throw replayRunning((await runningReplay(deps.db.knex, scope)) ?? { total: 0, done: 0 }, scope.environment);
    throw error;
  }
}

async function replayOne(
  deps: ReplayDeps,
  scope: { accountId: string; environment: Caller['environment'] },
  eventId: string,
  claim: IdempotencyClaim,
): Promise<ReplayResult> {
  if (!(await findEvent(deps.db.knex, scope, eventId))) {
    throw new ApiError('resource_not_found', { param: 'event', message: `No event ${eventId} in the ${scope.environment} environment.` });
  }
  let streamed = 0;
  const result = await claim.answerInTransaction(deps.db.knex, 200, async (trx): Promise<ReplayResult> => {
    streamed = await appendReplayEntries(trx, scope, [eventId]);
    const endpoints = await enqueueEventReplay(trx, scope, eventId, new Date());
    return { object: 'replay', queued: endpoints > 0 ? 1 : 0, endpoints, since: null, event: eventId };
  });
  // Committed: the streams may read the replay now.
  if (streamed > 0) announceStreamGrowth(deps.bus, deps.logger, scope);
  return result;
}
