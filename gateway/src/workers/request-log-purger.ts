import { startRetentionSweep, type Logger, type Poller } from '@connectivity/platform';
import { REQUEST_LOG_PURGE_BATCH, type RequestLog } from '../db/request-log-buffer.ts';

/**
 * Deletes requests past the retention on the platform's retention sweep, a tenth of the retention
 * apart (at least a second, at most ten minutes), a batch per statement.
 */
export function startRequestLogPurger(options: { requestLog: RequestLog; logger: Logger }): Poller {
  const { requestLog } = options;
  const intervalMs = Math.min(10 * 60_000, Math.max(1_000, requestLog.retentionMs() / 10));
  return startRetentionSweep({
    name: 'request log retention',
    logger: options.logger,
    intervalMs,
    firstDelayMs: intervalMs,
    keepMs: requestLog.retentionMs(),
    batch: REQUEST_LOG_PURGE_BATCH,
    steps: [{ what: 'requests', deleteBatch: (cutoffMs, limit) => requestLog.purgeBefore(cutoffMs, limit) }],
  });
}
