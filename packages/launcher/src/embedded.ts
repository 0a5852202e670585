import { startEarlyDatabase } from './early-database.ts';

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
 *
 * This file imports only the database: PGlite starts on its worker thread first, and the rest of
 * the app loads while it opens (docs/decisions/0271-embedded-database-starts-first.md).
 */
const early = startEarlyDatabase(process.env);
const { runEmbedded } = await import('./embedded-run.ts');
await runEmbedded(early);
