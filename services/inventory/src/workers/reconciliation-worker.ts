import { isApiError } from '@connectivity/contracts';
import { errorMessage, startPoller, type Caller, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { CatalogueClient } from '../clients/catalogue-client.ts';
import { claimEsimsToCheck, deferNextCheck, givePollBudgetBack, takePollBudget } from '../db/supplier-report-repository.ts';
import { applySupplierDeletion, applySupplierReport } from '../use-cases/apply-supplier-report.ts';

export interface ReconciliationWorkerOptions {
  knex: Knex;
  catalogue: CatalogueClient;
  logger: Logger;
  /** The pause between passes: with `batchSize`, the rate budget it spends at the supplier. */
  intervalMs: number;
  /** The most profiles asked about per pass. */
  batchSize: number;
  /** Profiles every instance together may ask the live supplier about per minute (record 0234). */
  budgetPerMinute?: number;
  now?: () => Date;
}

export interface ReconciliationWorker {
  /** One pass: asks the supplier about a batch of eSIMs; resolves with how many it asked about. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Reconciliation (record 0151): each pass claims a batch of live eSIMs that are not final, never
 * checked first then least recently checked, asks the supplier what it says of each and applies
 * the answer exactly as a callback's report (the same use case, under the eSIM's row lock). So a
 * callback that was lost, or never sent (callbacks off), is caught within one round of the live
 * eSIMs. The claim stamps `supplier_checked_at`, so instances side by side take different eSIMs. A
 * pass never runs straight into the next (one batch per interval, whatever is left): the batch and
 * the interval are the rate budget at the supplier. A supplier that is down ends the pass early.
 */
export function startReconciliationWorker(options: ReconciliationWorkerOptions): ReconciliationWorker {
  const now = options.now ?? (() => new Date());

  async function pass(): Promise<{ done: number; more: boolean }> {
    const nowMs = now().getTime();
    // Record 0234: the budget is the supplier's, shared by every instance through the database.
    const granted =
      options.budgetPerMinute === undefined ? options.batchSize : await takePollBudget(options.knex, nowMs, 60_000, options.budgetPerMinute, options.batchSize);
    if (granted === 0) return { done: 0, more: false };
    // An eSIM checked within the last interval (by another instance's pass) waits its turn.
    const due = await claimEsimsToCheck(options.knex, nowMs, nowMs - options.intervalMs, granted);
    await givePollBudgetBack(options.knex, granted - due.length);
    let asked = 0;
    for (const esim of due) {
      const caller: Caller = { accountId: esim.account_id, environment: 'live' };
      try {
        asked += 1;
        const report = await options.catalogue.profileReport(caller, esim.iccid);
        if (report === null) {
          // Record 0235: the supplier deleted it from its account; it ends with that reason.
          options.logger.warn({ esimId: esim.id }, 'the supplier knows no profile for a live eSIM: it deleted it; expiring it');
          await applySupplierDeletion(options.knex, esim.iccid, now());
          continue;
        }
        await applySupplierReport(options.knex, report, now());
        if (report.recheck_after_seconds) await deferNextCheck(options.knex, esim.iccid, nowMs + report.recheck_after_seconds * 1000);
      } catch (error) {
        options.logger.warn({ esimId: esim.id, err: errorMessage(error) }, 'reconciling a live eSIM failed; it is asked again in its turn');
        // The supplier (or catalogue) is down: the rest of the batch would fail the same way.
        if (!isApiError(error) || error.code === 'supplier_unavailable') break;
      }
    }
    return { done: asked, more: false };
  }

  const poller = startPoller({ name: 'supplier reconciliation', intervalMs: options.intervalMs, logger: options.logger, pass });
  return { runOnce: () => poller.runOnce(), stop: () => poller.stop() };
}
