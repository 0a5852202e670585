import { startPoller, type Logger, type Stoppable } from '@connectivity/platform';
import type { Knex } from 'knex';
import { pruneExpiredStreamLeases, renewStreamLeases } from '../db/stream-leases-repository.ts';
import type { StreamLeases } from '../db/stream-leases.ts';
import type { StreamHubs } from './stream-hub.ts';

const PRUNE_BATCH = 500;

/**
 * Keeps the leases of this instance's open streams alive: renewed together (one statement) three
 * times per lease period, so one late pass never lets an open stream's lease run out; and deletes
 * the expired leases of instances that died. Stopping waits for the hubs' reads and the leases'
 * releases under way, so none outlives the database.
 */
export function startStreamLeaseRenewal(options: { knex: Knex; hubs: StreamHubs; leases: StreamLeases; logger: Logger }): Stoppable {
  const { knex, leases } = options;
  const poller = startPoller({
    name: 'stream lease renewal',
    intervalMs: Math.max(1, Math.floor(leases.ttlMs / 3)),
    logger: options.logger,
    async pass() {
      const held = leases.held();
      await renewStreamLeases(knex, held, leases.ttlMs);
      const pruned = await pruneExpiredStreamLeases(knex, PRUNE_BATCH);
      return { done: held.length + pruned, more: pruned === PRUNE_BATCH };
    },
  });
  return {
    async stop() {
      await poller.stop();
      await options.hubs.stop();
      await leases.settled();
    },
  };
}
