import { ApiError, type ReplayResult } from '@connectivity/contracts';
import { answerInTransaction, type Database, type Identity } from '@connectivity/platform';
import { replaySelection } from '../domain/replay-selection.ts';
import { enqueueReplay } from '../db/deliveries-repository.ts';
import { findEvent } from '../db/events-repository.ts';

/**
 * Queues past events of the caller's account and environment for delivery again: new delivery
 * rows for the stored events (same ids), each attempt signed afresh when it is sent.
 */
export async function replayEvents(
  db: Database,
  identity: Identity,
  body: { since?: number | undefined; event?: string | undefined },
): Promise<ReplayResult> {
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
  return answerInTransaction(db.knex, 200, async (trx): Promise<ReplayResult> => {
    if (selection.kind === 'event') {
      const queued = await enqueueReplay(trx, scope, { eventId: selection.eventId }, now);
      return { object: 'replay', queued: queued.events, endpoints: queued.endpoints, since: null, event: selection.eventId };
    }
    const queued = await enqueueReplay(trx, scope, { since: selection.since }, now);
    return { object: 'replay', queued: queued.events, endpoints: queued.endpoints, since: selection.since, event: null };
  });
}
