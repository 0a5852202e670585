import { busOptionsFrom, createBus, createDatabase, createLogger, grantSchemaToRole, runMigrations } from '@connectivity/platform';
import { loadLauncherConfig } from './config.ts';
import { allServices } from './services.ts';

/**
 * `pnpm migrate`: every service's migrations, each in its own schema with its own history, under
 * DATABASE_URL's login (the owner). With DATABASE_RUNTIME_ROLE_PREFIX, each service's runtime
 * login is then given the use of its schema alone. With NATS_URL, the event streams are made or
 * brought up to date, as the NATS user that may (the services' users may only read them). Run
 * before the services start in the distributed form (the embedded form migrates by itself).
 */
const config = loadLauncherConfig();
const logger = createLogger({ name: 'migrate', level: config.LOG_LEVEL });
const db = await createDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, caFile: config.DATABASE_CA_FILE });
try {
  for (const service of allServices) {
    const { schema } = service.migrations;
    await runMigrations(db.knex, service.migrations);
    if (config.DATABASE_RUNTIME_ROLE_PREFIX) await grantSchemaToRole(db.knex, schema, `${config.DATABASE_RUNTIME_ROLE_PREFIX}${schema}`);
    logger.info({ schema }, `${service.name} migrated`);
  }
} finally {
  await db.close();
}
if (config.NATS_URL) {
  const bus = await createBus(busOptionsFrom(config, 'migrate'));
  await bus.close();
  logger.info({ stream: config.NATS_STREAM }, 'event streams ready');
}
