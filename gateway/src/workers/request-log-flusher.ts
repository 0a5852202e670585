import { startPoller, type Logger, type Stoppable } from '@connectivity/platform';
import type { RequestLog } from '../db/request-log-buffer.ts';

/**
 * Writes the request log's buffer every `intervalMs`, and at once when half its bound waits; when
 * it stops, whatever is buffered is written before the process goes.
 */
export function startRequestLogFlusher(options: { requestLog: RequestLog; logger: Logger; intervalMs: number }): Stoppable {
  const { requestLog } = options;
  const poller = startPoller({ name: 'request log', intervalMs: options.intervalMs, logger: options.logger, pass: () => requestLog.flush() });
  const unlisten = requestLog.whenFull(() => poller.wake());
  return {
    async stop() {
      unlisten();
      await poller.stop();
      await requestLog.drain();
    },
  };
}
