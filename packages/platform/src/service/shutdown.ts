import type { Logger } from '../logger.ts';
import { shutdownTelemetry } from '../telemetry/start.ts';

/**
 * On SIGTERM or SIGINT, runs `stop` once (stop taking requests, stop workers, close the bus and
 * the database, in the caller's order), flushes telemetry and exits; a failure while stopping
 * is logged and exits non-zero, so an orchestrator sees it.
 */
export function exitOnSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    try {
      await stop();
      await shutdownTelemetry();
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
}
