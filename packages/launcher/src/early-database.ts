import path from 'node:path';
import type { Database, Logger } from '@connectivity/platform';
import { createDatabase, DEFAULT_DATA_DIR } from '@connectivity/platform/database';
import type { LauncherConfig } from './config.ts';

type BackgroundLogger = Pick<Logger, 'error' | 'info'>;

/** The embedded database, started before the rest of the app is loaded (see startEarlyDatabase). */
export interface EarlyDatabase {
  dataDir: string;
  database: Promise<Database>;
  /** Where its background work (PGlite's vacuum) reports, once the logger exists. */
  useLogger(logger: BackgroundLogger): void;
}

/**
 * Starts the embedded PGlite from the two variables that choose it, before the configuration,
 * the services and the gateway are loaded: PGlite's worker opens the data directory (~0.5 s) on
 * the other core while this thread loads the app's modules (~0.5 s), which before ran one after
 * the other (docs/decisions/0271-embedded-database-starts-first.md). It starts nothing when the
 * configuration may choose otherwise (a DATABASE_URL) or would refuse it (an empty DATA_DIR):
 * adoptEarlyDatabase then opens what the parsed configuration says.
 */
export function startEarlyDatabase(env: NodeJS.ProcessEnv): EarlyDatabase | undefined {
  if (env.DATABASE_URL || env.DATA_DIR === '') return undefined;
  const dataDir = env.DATA_DIR ?? DEFAULT_DATA_DIR;
  let logger: BackgroundLogger | undefined;
  const forward: BackgroundLogger = {
    error: (object: unknown, message?: string) => {
      logger?.error(object, message);
    },
    info: (object: unknown, message?: string) => {
      logger?.info(object, message);
    },
  };
  const database = createDatabase({ dataDir, logger: forward });
  // Awaited by adoptEarlyDatabase, which throws its error; until then it is not an unhandled rejection.
  database.catch(() => undefined);
  return {
    dataDir,
    database,
    useLogger: (next) => {
      logger = next;
    },
  };
}

/**
 * The database the configuration asks for: the early one when it is that one (the same
 * environment chose both), else a new one, and the early one closed.
 */
export async function adoptEarlyDatabase(
  early: EarlyDatabase | undefined,
  config: Pick<LauncherConfig, 'DATABASE_URL' | 'DATA_DIR'>,
  logger: Logger,
): Promise<Database> {
  if (early && config.DATABASE_URL === undefined && path.resolve(config.DATA_DIR) === path.resolve(early.dataDir)) {
    early.useLogger(logger);
    return early.database;
  }
  if (early)
    await early.database.then(
      (database) => database.close(),
      () => undefined,
    );
  return createDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, logger });
}
