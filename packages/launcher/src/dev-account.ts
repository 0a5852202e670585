import { ensureDevAccount } from '@connectivity/gateway';
import { createDatabase, type Logger } from '@connectivity/platform';
import type { LauncherConfig } from './config.ts';

/** In the distributed form the dev account is provisioned once, before the gateway starts. */
export async function provisionDevAccount(config: LauncherConfig, logger: Logger): Promise<void> {
  const db = await createDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    const dev = await ensureDevAccount({ db }, { testKey: config.DEV_TEST_KEY, liveKey: config.DEV_LIVE_KEY, dataDir: config.DATA_DIR });
    logger.info({ account: dev.accountId }, 'dev account ready');
  } finally {
    await db.close();
  }
}
