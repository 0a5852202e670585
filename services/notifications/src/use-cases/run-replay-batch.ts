import { signalAfterCommit, type Bus, type Database, type Logger } from '@connectivity/platform';
import { DELIVERIES_SIGNAL } from '../db/deliveries-repository.ts';
import { advanceReplay, queueReplayBatch, type ClaimedReplay } from '../db/replays-repository.ts';
import { appendReplayEntries } from '../db/stream-repository.ts';
import { announceStreamGrowth } from '../consumers/stream-notices.ts';

/** The claim was lost to another worker (its lease ran out): this batch is rolled back, theirs stands. */
export class ReplayLeaseLost extends Error {
  override readonly name = 'ReplayLeaseLost';
}

/**
 * Queues the next batch of a claimed replay in ONE transaction: the deliveries of up to
 * `batchSize` events after its cursor (never past its total), their stream entries for a test
 * replay, and the replay's new cursor, so a crash anywhere queues each event once. Returns how
 * many events the batch queued and whether the replay is finished.
 */
export async function runReplayBatch(
  deps: { db: Database; bus: Bus; logger: Logger },
  replay: ClaimedReplay,
  batchSize: number,
): Promise<{ queued: number; finished: boolean }> {
  const limit = Math.min(batchSize, replay.total - replay.done);
  let streamed = 0;
  const outcome = await deps.db.knex.transaction(async (trx) => {
    const now = new Date();
    const events = limit > 0 ? await queueReplayBatch(trx, replay, limit, now) : [];
    streamed = await appendReplayEntries(
      trx,
      replay,
      events.map((event) => event.id),
    );
    const finished = events.length < limit || replay.done + events.length >= replay.total;
    if (!(await advanceReplay(trx, replay, { count: events.length, last: events.at(-1), finished }, now))) throw new ReplayLeaseLost(`replay ${replay.id}`);
    if (events.length > 0) signalAfterCommit(trx, DELIVERIES_SIGNAL);
    return { queued: events.length, finished };
  });
  // Committed: the streams of the account may read the replayed entries now.
  if (streamed > 0) announceStreamGrowth(deps.bus, deps.logger, replay);
  return outcome;
}
