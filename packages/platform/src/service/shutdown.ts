import type { Logger } from '../logger.ts';
import { shutdownTelemetry } from '../telemetry/start.ts';
import { beginDrain } from './drain.ts';

/**
 * On SIGTERM or SIGINT, runs `stop` once (stop taking requests, stop workers, close the bus and
 * the database, in the caller's order), flushes telemetry and exits; a failure while stopping
 * is logged and exits non-zero, so an orchestrator sees it.
 */
export function exitOnSignal(logger: Logger, stop: () => Promise<void>, options: { deadlineMs?: number } = {}): void {
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    beginDrain();
    logger.info({ signal }, 'shutting down');
    // Whatever hangs, the process is gone well inside an orchestrator's grace period (30 s).
    setTimeout(() => {
      logger.error('shutdown did not finish in time; exiting');
      process.exit(1);
    }, options.deadlineMs ?? 20_000).unref();
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
