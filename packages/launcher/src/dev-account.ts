import { ensureDevAccount } from '@connectivity/gateway';
import { createBus, createDatabase, type Logger } from '@connectivity/platform';
import type { LauncherConfig } from './config.ts';

/** In the distributed form the dev account is provisioned once, before the gateway starts. */
export async function provisionDevAccount(config: LauncherConfig, logger: Logger): Promise<void> {
  const db = await createDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  const bus = await createBus({ natsUrl: config.NATS_URL });
  try {
    const dev = await ensureDevAccount({ db, bus, logger }, { testKey: config.DEV_TEST_KEY, liveKey: config.DEV_LIVE_KEY });
    logger.info({ account: dev.accountId }, 'dev account ready');
  } finally {
    await bus.close();
    await db.close();
  }
}
