import { createDatabase, createLogger, runMigrations } from '@connectivity/platform';
import { loadLauncherConfig } from './config.ts';
import { allServices } from './services.ts';

/**
 * `pnpm migrate`: every service's migrations, each in its own schema with its own history.
 * Run before the services start in the distributed form (the embedded form migrates by itself).
 */
const config = loadLauncherConfig();
const logger = createLogger({ name: 'migrate', level: config.LOG_LEVEL });
const db = await createDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
try {
  for (const service of allServices) {
    await runMigrations(db.knex, service.migrations);
    logger.info({ schema: service.migrations.schema }, `${service.name} migrated`);
  }
} finally {
  await db.close();
}
