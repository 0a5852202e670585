import { startPoller, sweepDue, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { esimsExpiringDue, expiringOf, notifyExpiring, type ExpiringRow } from '../db/expiring-repository.ts';
import { dueExpiringMark } from '../domain/expiring.ts';

export interface ExpiringNotifierOptions {
  knex: Knex;
  logger: Logger;
  intervalMs: number;
  batchSize: number;
  now?: () => Date;
}

export interface ExpiringNotifier {
  /** Sends the `esim.expiring` notices due; resolves with how many it sent. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Sends `esim.expiring` 3 days and 1 day before `expires_at` (record 0236), in real time: sandbox eSIMs
 * not on a test clock and live eSIMs whose supplier sends no such notice (eSIM Go). Each batch is one
 * sweep (`sweepDue`): its rows are locked, skipped when another instance holds them, and the notice is
 * remembered on the row in the transaction that writes the event, so each mark is sent once.
 */
export function startExpiringNotifier(options: ExpiringNotifierOptions): ExpiringNotifier {
  const now = options.now ?? (() => new Date());

  async function pass(): Promise<{ done: number; more: boolean }> {
    const at = now();
    const seconds = Math.floor(at.getTime() / 1000);
    const { taken, result: sent } = await sweepDue<ExpiringRow, number>(options.knex, {
      due: (trx) => esimsExpiringDue(trx, seconds),
      limit: options.batchSize,
      apply: async (trx, rows) => {
        let sent = 0;
        for (const { esim, notified } of rows.map(expiringOf)) {
          const mark = dueExpiringMark(esim, notified, seconds);
          if (mark === null) continue;
          await notifyExpiring(trx, esim, mark, at);
          sent += 1;
        }
        return sent;
      },
    });
    if (sent > 0) options.logger.info({ sent }, 'sent esim.expiring notices');
    return { done: sent, more: taken === options.batchSize };
  }

  const poller = startPoller({ name: 'expiring notifier', intervalMs: options.intervalMs, logger: options.logger, pass });
  return { sweep: () => poller.runOnce(), stop: () => poller.stop() };
}
