import { domainMetrics, startPoller, sweepDue, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { expireEsim } from '../db/esim-events.ts';
import { openRefund } from '../db/refund-ledger.ts';
import { esimFromRow, esimsPastValidity, type EsimRow } from '../db/esim-repository.ts';
import { clearTermination, esimsTerminated } from '../db/termination-repository.ts';
import { REFUND_CHECK_AFTER_MS } from '../use-cases/update-esim.ts';

export interface ExpirySweeperOptions {
  knex: Knex;
  logger: Logger;
  intervalMs: number;
  batchSize: number;
  now?: () => Date;
  /** When the refund worker first asks the vendor about a refund it reviews, for a cancel recorded here. */
  refundCheckAfterMs?: number;
}

export interface ExpirySweeper {
  /** Expires every eSIM whose validity has ended; resolves with how many it expired. */
  sweep(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Moves eSIMs past `expires_at` to `expired`, with `esim.expired`, in batches; then the live
 * eSIMs whose cancel the supplier confirmed but whose database write failed. Each batch is one
 * sweep (`sweepDue`): its rows are locked and re-read in the transaction that moves them, and
 * rows another instance holds are skipped, so several instances sweeping at once expire each
 * eSIM exactly once.
 */
export function startExpirySweeper(options: ExpirySweeperOptions): ExpirySweeper {
  const now = options.now ?? (() => new Date());
  const limit = options.batchSize;

  /** A batch of eSIMs past their validity: each expires with its event. */
  async function expirePastValidity(): Promise<number> {
    const at = now();
    const seconds = Math.floor(at.getTime() / 1000);
    const { taken } = await sweepDue<EsimRow, void>(options.knex, {
      due: (trx) => esimsPastValidity(trx, seconds),
      limit,
      apply: async (trx, rows) => {
        for (const row of rows) await expireEsim(trx, esimFromRow(row), 'validity_ended', at);
      },
    });
    return taken;
  }

  /**
   * A batch of cancels the supplier confirmed but whose database write failed: each eSIM moves
   * to `expired` with its `esim.expired` (unless something expired it meanwhile) and its
   * termination fact is cleared. Resolves with how many facts it took and how many eSIMs moved.
   */
  async function applyRecordedTerminations(): Promise<{ taken: number; moved: number }> {
    const at = now();
    const { taken, result: moved } = await sweepDue<EsimRow, number>(options.knex, {
      due: esimsTerminated,
      limit,
      apply: async (trx, rows) => {
        let moved = 0;
        for (const esim of rows.map(esimFromRow)) {
          const money = await clearTermination(trx, esim.id);
          if (!money || (esim.state === 'expired' && esim.expired_reason !== 'cancelled')) continue;
          const cancelled = esim.state === 'expired' ? esim : await expireEsim(trx, esim, 'cancelled', at);
          await openRefund(trx, cancelled, money, at, options.refundCheckAfterMs ?? REFUND_CHECK_AFTER_MS);
          if (cancelled !== esim) moved += 1;
        }
        return moved;
      },
    });
    return { taken, moved };
  }

  /** One pass: a batch of eSIMs past validity, then a batch of recorded supplier terminations. */
  async function pass(): Promise<{ done: number; more: boolean }> {
    const expired = await expirePastValidity();
    const { taken, moved } = await applyRecordedTerminations();
    if (expired + moved > 0) {
      domainMetrics.sweeperMoved(expired + moved);
      options.logger.info({ expired: expired + moved }, 'expired eSIMs past their validity');
    }
    return { done: expired + moved, more: expired === limit || taken === limit };
  }

  const poller = startPoller({ name: 'expiry sweeper', intervalMs: options.intervalMs, logger: options.logger, pass });

  return {
    sweep: () => poller.runOnce(),
    stop: () => poller.stop(),
  };
}
