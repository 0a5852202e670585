import { startPoller, type Logger, type Stoppable } from '@connectivity/platform';
import type { KeyUse } from '../db/key-use.ts';

/** Writes the last use of the keys used since the previous pass, every `intervalMs`; a last flush when it stops. */
export function startKeyUseFlusher(options: { keyUse: KeyUse; logger: Logger; intervalMs: number }): Stoppable {
  const { keyUse } = options;
  const poller = startPoller({ name: 'key use', intervalMs: options.intervalMs, logger: options.logger, pass: () => keyUse.flush() });
  return {
    async stop() {
      await poller.stop();
      await keyUse.flush();
    },
  };
}
