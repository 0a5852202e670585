import { ApiError, type ReplayResult } from '@connectivity/contracts';
import { answerInTransaction, type Bus, type Database, type Identity, type Logger } from '@connectivity/platform';
import { replaySelection } from '../domain/replay-selection.ts';
import { enqueueReplay } from '../db/deliveries-repository.ts';
import { findEvent } from '../db/events-repository.ts';
import { appendReplayEntries } from '../db/stream-repository.ts';
import { announceStreamGrowth } from '../stream/stream-notices.ts';

/**
 * Queues past events of the caller's account and environment for delivery again: new delivery
 * rows for the stored events (same ids), each attempt signed afresh when it is sent. Test
 * replays also go to the open event streams: appended to the stream in the same transaction.
 */
export async function replayEvents(
  deps: { db: Database; bus: Bus; logger: Logger },
  identity: Identity,
  body: { since?: number | undefined; event?: string | undefined },
): Promise<ReplayResult> {
  const { db } = deps;
  const now = new Date();
  const scope = { accountId: identity.accountId, environment: identity.environment };
  const selection = replaySelection(body, Math.floor(now.getTime() / 1000));
  if (selection.kind === 'event') {
    if (!(await findEvent(db.knex, scope, selection.eventId))) {
      throw new ApiError('resource_not_found', {
        param: 'event',
        message: `No event ${selection.eventId} in the ${identity.environment} environment.`,
      });
    }
  }
  // Queued with its answer (idempotency): a retried replay queues nothing twice.
  let streamed = 0;
  const result = await answerInTransaction(db.knex, 200, async (trx): Promise<ReplayResult> => {
    const filter = selection.kind === 'event' ? { eventId: selection.eventId } : { since: selection.since };
    streamed = await appendReplayEntries(trx, scope, filter);
    const queued = await enqueueReplay(trx, scope, filter, now);
    return selection.kind === 'event'
      ? { object: 'replay', queued: queued.events, endpoints: queued.endpoints, since: null, event: selection.eventId }
      : { object: 'replay', queued: queued.events, endpoints: queued.endpoints, since: selection.since, event: null };
  });
  // Committed: the streams may read the replay now.
  if (streamed > 0) announceStreamGrowth(deps.bus, deps.logger, scope);
  return result;
}
