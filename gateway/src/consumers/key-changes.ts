import { errorMessage, type Bus, type Logger, type Stoppable } from '@connectivity/platform';
import type { KeyCache } from '../db/key-cache.ts';
import type { KeyChangeNotice } from '../domain/key-change.ts';

/** The notice every gateway instance hears when a key or its account changed. */
export const KEY_CHANGES_SUBJECT = 'control.gateway.keys';

/**
 * Hears the key-change notices of every instance (this one's own included) and drops what each
 * names from the key cache. If the bus refuses the subscription the gateway still serves: cached
 * keys then expire by age only.
 */
export async function startKeyChangeListener(options: { bus: Bus; logger: Logger; keys: KeyCache }): Promise<Stoppable> {
  const { keys } = options;
  try {
    return await options.bus.listen<KeyChangeNotice>(KEY_CHANGES_SUBJECT, (notice) => keys.forget(notice));
  } catch (error) {
    options.logger.error({ err: errorMessage(error) }, 'listening for key changes failed; cached keys expire by age only');
    return { stop: () => Promise.resolve() };
  }
}

/** Announces key and account changes to every gateway instance, after the change committed. */
export function keyChangeAnnouncer(bus: Bus, keys: KeyCache, logger: Logger) {
  return (notice: KeyChangeNotice): void => {
    // This instance forgets at once; the others within a bus round trip.
    keys.forget(notice);
    bus.notify(KEY_CHANGES_SUBJECT, notice).catch((error: unknown) => {
      logger.warn({ err: errorMessage(error) }, 'announcing a key change failed; other instances refresh it within their cache lifetime');
    });
  };
}
