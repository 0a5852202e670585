import { flushCompileCache } from 'node:module';
import { ensureDevAccount } from '@connectivity/gateway';
import { busOptionsFrom, createBus, createLogger, exitOnSignal } from '@connectivity/platform';
import { loadLauncherConfig, serviceEnvironment } from './config.ts';
import { startComposition } from './compose.ts';
import { startFakeSupplier } from './fake-supplier.ts';
import { adoptEarlyDatabase, type EarlyDatabase } from './early-database.ts';

/**
 * The embedded form once its database is on its way (embedded.ts): the configuration, the bus,
 * the services and the gateway in this process, the dev account, and the keys printed.
 */
export async function runEmbedded(early: EarlyDatabase | undefined): Promise<void> {
  const config = loadLauncherConfig();
  const logger = createLogger({ name: 'connectivity', level: config.LOG_LEVEL });
  const db = await adoptEarlyDatabase(early, config, logger);
  const bus = await createBus(busOptionsFrom(config, 'connectivity'));

  const env = serviceEnvironment(config);
  // Opt-in (FAKE_SUPPLIER=airalo or esim-go): that vendor's fake serves live keys and calls back the
  // gateway's hook, so the whole live life cycle can be tried on a laptop too.
  const fakeSupplier = config.FAKE_SUPPLIER
    ? await startFakeSupplier(config.FAKE_SUPPLIER, { port: config.FAKE_SUPPLIER_PORT, gatewayUrl: `http://127.0.0.1:${config.PORT}` })
    : undefined;
  if (fakeSupplier) Object.assign(env, fakeSupplier.env);
  // The dev account is made before the gateway listens: once /readyz answers, its keys work.
  let dev: Awaited<ReturnType<typeof ensureDevAccount>> | undefined;
  const composition = await startComposition({
    runtime: { db, bus, logger },
    env,
    port: config.PORT,
    host: config.HOST,
    beforeGatewayListens: async () => {
      dev = await ensureDevAccount({ db }, { testKey: config.DEV_TEST_KEY, liveKey: config.DEV_LIVE_KEY, dataDir: config.DATA_DIR });
    },
  });
  if (!dev) throw new Error('the gateway started without the dev account');
  logger.info({ port: config.PORT, database: db.kind, bus: bus.kind }, 'Connectivity Service listening');
  // Written now, not at exit: Node writes it only on a natural exit, never after Ctrl-C or a kill.
  flushCompileCache();
  // The dev keys are printed for the person who started the sandbox, never logged.
  process.stdout.write(
    [
      '',
      `Connectivity Service (${db.kind === 'pglite' ? 'embedded' : 'external database'}) on http://localhost:${config.PORT}`,
      `  API reference:  http://localhost:${config.PORT}/docs`,
      `  dev account:    ${dev.accountId}`,
      `  test key:       ${dev.testKey}`,
      `  live key:       ${dev.liveKey}${fakeSupplier ? `  (fake ${fakeSupplier.vendor} supplier on ${fakeSupplier.url}; drive it under /_fake)` : ''}`,
      '',
    ].join('\n') + '\n',
  );

  exitOnSignal(logger, async () => {
    await composition.stop();
    await fakeSupplier?.close();
    await bus.close();
    await db.close();
  });
}
