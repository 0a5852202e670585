import { randomUUID } from 'node:crypto';
import { startPoller, type Bus, type Database, type Logger, type Stoppable } from '@connectivity/platform';
import { accountAtPendingCap, claimReplays, endpointOverPendingCap, postponeReplay, REPLAYS_SIGNAL } from '../db/replays-repository.ts';
import { flushStreamNotices } from '../consumers/stream-notices.ts';
import { ReplayLeaseLost, runReplayBatch } from '../use-cases/run-replay-batch.ts';

export interface ReplayWorkerOptions {
  db: Database;
  bus: Bus;
  logger: Logger;
  /** How often it looks for due replays when idle (commits that queue one wake it too). */
  pollIntervalMs: number;
  /** Events queued per batch (one transaction each). */
  batchSize: number;
  /** A batch waits while an endpoint it goes to has more deliveries than this pending. */
  maxPendingPerEndpoint: number;
  /** ... or while its account and environment has this many pending (the cap fresh events obey). */
  maxPendingPerAccount: number;
  /** How long a batch waits, then, before it looks again. */
  waitMs: number;
}

/** A claimed replay is ours this long: far longer than one batch's transaction. */
const LEASE_MS = 60_000;

/**
 * The worker that works through queued replays, on the platform's poller: each pass claims the
 * replay that waited longest (any instance may run it; the lease keeps it to one) and queues its
 * next batch, unless an endpoint it goes to already has too many deliveries pending, or its
 * account has its cap: then the batch waits, so a tenant's replays cannot grow the deliveries
 * table without bound, and nothing a replay would queue is left out by the cap.
 */
export function startReplayWorker(options: ReplayWorkerOptions): Stoppable {
  const { db, logger } = options;
  const poller = startPoller({
    name: 'event replays',
    intervalMs: options.pollIntervalMs,
    wakeOn: [REPLAYS_SIGNAL],
    logger,
    async pass() {
      const now = new Date();
      const [replay] = await claimReplays(db.knex, { now, leaseUntil: new Date(now.getTime() + LEASE_MS), limit: 1, token: randomUUID() });
      if (!replay) return { done: 0, more: false };
      const full = (await endpointOverPendingCap(db.knex, replay, options.maxPendingPerEndpoint))
        ? 'an endpoint has too many deliveries pending'
        : (await accountAtPendingCap(db.knex, replay, options.maxPendingPerAccount))
          ? 'the account has its cap of deliveries pending'
          : undefined;
      if (full) {
        await postponeReplay(db.knex, replay, new Date(Date.now() + options.waitMs));
        logger.info({ replay_id: replay.id, account_id: replay.accountId, done: replay.done, total: replay.total }, `replay waits: ${full}`);
        // Another replay may be due meanwhile.
        return { done: 0, more: true };
      }
      try {
        const batch = await runReplayBatch(options, replay, options.batchSize);
        if (batch.finished) logger.info({ replay_id: replay.id, account_id: replay.accountId, events: replay.done + batch.queued }, 'replay finished');
        return { done: batch.queued, more: true };
      } catch (error) {
        if (error instanceof ReplayLeaseLost) return { done: 0, more: true };
        throw error;
      }
    },
  });
  return {
    async stop() {
      await poller.stop();
      // The growth its last batches told other instances of goes out while the bus is open.
      flushStreamNotices(options.bus, logger);
    },
  };
}
