import { flushCompileCache } from 'node:module';
import { ensureDevAccount } from '@connectivity/gateway';
import { busOptionsFrom, createBus, createDatabase, createLogger, exitOnSignal } from '@connectivity/platform';
import { loadLauncherConfig, serviceEnvironment } from './config.ts';
import { startComposition } from './compose.ts';
import { startFakeSupplier } from './fake-supplier.ts';

/**
 * `pnpm start`: the whole API in one process, like stripe-mock or LocalStack but with the real
 * code. Each service keeps its own express app on a loopback port and the gateway forwards to
 * it over HTTP exactly as in the distributed form; they share one database (PGlite under
 * DATA_DIR unless DATABASE_URL is set) and one bus (in-process unless NATS_URL is set).
 *
 * The `start` script gives Node a laptop's memory settings: PGlite's WASM functions compiled
 * when first called (most never are), a 2 MB young generation, a 256 MB old one and two V8
 * worker threads, since without limits V8 keeps far more memory than the live heap needs
 * (docs/decisions/0009-embedded-form-memory.md); V8's gc exposed and the C library's trim
 * threshold fixed, so what a burst left is given back once idle (docs/decisions/0269). They must
 * be Node arguments and the environment: V8 and malloc size themselves before any code here runs.
 * The script also keeps Node's compile cache (the TypeScript stripped and compiled) under
 * node_modules/.cache, so a second start does not strip and compile every module again
 * (docs/decisions/0270).
 */
const config = loadLauncherConfig();
const logger = createLogger({ name: 'connectivity', level: config.LOG_LEVEL });
const db = await createDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, logger });
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
