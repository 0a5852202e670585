import { startPoller, type Logger, type Poller } from '@connectivity/platform';
import type { RequestLog } from '../db/request-log-buffer.ts';

/** Deletes requests past the retention, a tenth of the retention apart (at least a second, at most ten minutes). */
export function startRequestLogPurger(options: { requestLog: RequestLog; logger: Logger }): Poller {
  const { requestLog } = options;
  return startPoller({
    name: 'request log retention',
    intervalMs: Math.min(10 * 60_000, Math.max(1_000, requestLog.retentionMs() / 10)),
    logger: options.logger,
    pass: () => requestLog.purge(),
  });
}
