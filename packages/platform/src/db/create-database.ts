import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import knexFactory from 'knex';
import type { Knex } from 'knex';
import { pgliteTemplatePath } from './pglite-template.ts';
import { startPgliteVacuum } from './pglite-vacuum.ts';
import type { Database } from './types.ts';
import type { Logger } from '../logger.ts';
import { onIdleRelease } from '../memory/idle-release.ts';

export interface CreateDatabaseOptions {
  /** A PostgreSQL server (distributed mode). Absent: embedded PGlite under `dataDir`. */
  databaseUrl?: string | undefined;
  /** Where embedded PGlite keeps its files (`<dataDir>/pglite`); `memory://` keeps nothing on disk. */
  dataDir?: string | undefined;
  /** Pool size for a PostgreSQL server; ignored for PGlite, whose pool is fixed (record 0275). */
  poolMax?: number | undefined;
  /** How long a query waits for a free pooled connection before it fails, in ms. */
  acquireConnectionTimeoutMs?: number | undefined;
  /**
   * A CA bundle (PEM file): the connection must be TLS, the server's certificate signed by it
   * and naming the host (verify-full; `DATABASE_CA_FILE`).
   */
  caFile?: string | undefined;
  /** PGlite only: how often its stand-in for autovacuum looks for tables due (record 0267). */
  vacuumIntervalMs?: number | undefined;
  /** Where the background work the database runs itself (PGlite's vacuum) reports a failed pass. */
  logger?: Pick<Logger, 'error' | 'info'> | undefined;
}

export const MEMORY_DATA_DIR = 'memory://';
/** Where the embedded database lives when DATA_DIR is unset. */
export const DEFAULT_DATA_DIR = './.data';

// Long enough to ride out a relay tick or a migration holding PGlite's one backend,
// short enough that a leaked transaction shows up as a clear error instead of a hang.
const DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000;

export async function createDatabase(options: CreateDatabaseOptions = {}): Promise<Database> {
  if (options.databaseUrl) return createPostgresDatabase(options.databaseUrl, options);
  return createPgliteDatabase(options.dataDir ?? DEFAULT_DATA_DIR, options);
}

function createPostgresDatabase(databaseUrl: string, options: CreateDatabaseOptions): Database {
  const knex = knexFactory({
    client: 'pg',
    connection: options.caFile ? verifiedTls(databaseUrl, options.caFile) : databaseUrl,
    pool: { min: 0, max: options.poolMax ?? 10 },
    acquireConnectionTimeout: options.acquireConnectionTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
  });
  return wrap('postgres', knex, async () => {
    await knex.destroy();
  });
}

/**
 * With a CA, TLS or nothing: node-postgres checks the certificate's chain and the host name. The
 * URL's own ssl parameters go, since node-postgres would let them override these (`sslmode=disable`).
 */
function verifiedTls(databaseUrl: string, caFile: string) {
  const url = new URL(databaseUrl);
  for (const name of ['ssl', 'sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'uselibpqcompat']) url.searchParams.delete(name);
  return { connectionString: url.toString(), ssl: { ca: readFileSync(caFile, 'utf8'), rejectUnauthorized: true } };
}

/**
 * The embedded database is one backend serving one process: Postgres's server-sized defaults
 * (128 MB of shared buffers) would be much of the sandbox's memory; these keep a laptop
 * sandbox's working set at a fraction of that.
 */
const PGLITE_OPTIONS = {
  postgresqlconf: ["shared_buffers = '16MB'", "work_mem = '2MB'", "maintenance_work_mem = '16MB'", "temp_buffers = '2MB'"],
};

/** The embedded database's pooled connections (record 0275); its server takes two more, for a reconnect while an old socket closes. */
const PGLITE_CONNECTIONS = 3;

async function createPgliteDatabase(dataDir: string, options: CreateDatabaseOptions): Promise<Database> {
  const directory = dataDir === MEMORY_DATA_DIR ? undefined : path.resolve(dataDir, 'pglite');
  // Nothing is awaited before the worker starts on a data directory that exists, so a caller that
  // goes on loading modules meanwhile (the embedded launcher) has it opening on the other core
  // (docs/decisions/0271-embedded-database-starts-first.md).
  if (directory !== undefined && !isDataDirectory(directory)) await initialiseDataDirectory(directory);
  if (directory !== undefined) keepPrivate(directory);
  // In memory: from the template of a fresh cluster when there is one (pglite-template.ts).
  const template = directory === undefined ? await pgliteTemplatePath(PGLITE_OPTIONS.postgresqlconf) : undefined;
  const server = await startPgliteServer(directory, template);

  // Serving PGlite over the wire protocol keeps one code path (`pg`) for both modes; `pg`
  // reaches a Unix socket as `<host folder>/.s.PGSQL.<port>`.
  const knex = knexFactory({
    client: 'pg',
    connection: { host: server.socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' },
    // PGlite is a single Postgres backend, which its server gives to one connection's exchange or
    // transaction at a time (pglite-wire.ts); a few connections let the next statement wait there,
    // ready, while this side reads the last one's answer. Kept open: each new connection would
    // prepare its statements again in the one backend.
    pool: { min: PGLITE_CONNECTIONS, max: PGLITE_CONNECTIONS },
    acquireConnectionTimeout: options.acquireConnectionTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS,
  });

  // PGlite runs no autovacuum: without this, every deleted or updated row stays behind and each
  // scan of a busy table walks them all (record 0267).
  const vacuum = startPgliteVacuum(knex, { intervalMs: options.vacuumIntervalMs, logger: options.logger });
  return wrap('pglite', knex, async () => {
    await vacuum.stop();
    await knex.destroy();
    await server.close();
  });
}

const SERVER_SCRIPT = new URL('./pglite-server.ts', import.meta.url);
/** Only names the socket file (`.s.PGSQL.5432`), as PostgreSQL's clients expect. */
const SOCKET_PORT = 5432;

/**
 * PGlite and its wire-protocol server in a worker thread (see pglite-server.ts for why). The
 * worker gets no Node options: it needs none, and the telemetry `--import` would start a second
 * SDK in it.
 */
async function startPgliteServer(directory: string | undefined, template: string | undefined): Promise<{ socketDir: string; close(): Promise<void> }> {
  // A fresh folder of the system's temporary space: mkdtemp makes it 0700, and its path stays
  // short (a socket path may not exceed ~100 bytes, which DATA_DIR could).
  const socketDir = mkdtempSync(path.join(tmpdir(), 'connectivity-db-'));
  const socketPath = path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`);
  const worker = new Worker(SERVER_SCRIPT, {
    workerData: { directory, template, socketPath, conf: PGLITE_OPTIONS.postgresqlconf, maxConnections: PGLITE_CONNECTIONS + 2 },
    execArgv: [],
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (message: { listening?: boolean; error?: string }) => {
        if (message.listening) resolve();
        else reject(new Error(`the embedded database could not start: ${message.error ?? 'unknown error'}`));
      });
      worker.once('error', reject);
      void exited.then(() => reject(new Error('the embedded database stopped while starting')));
    });
  } catch (error) {
    await rm(socketDir, { recursive: true, force: true });
    throw error;
  }
  let closing: Promise<void> | undefined;
  const stopReleasing = onIdleRelease(() => worker.postMessage('release-memory'));
  return {
    socketDir,
    close() {
      stopReleasing();
      closing ??= (async () => {
        // Closed means the database has flushed its last writes; the thread is then ended
        // whether or not something in it would keep it alive.
        const closed = new Promise<void>((resolve) => worker.on('message', (message: { closed?: boolean }) => message.closed && resolve()));
        worker.postMessage('close');
        await Promise.race([closed, exited]);
        await worker.terminate();
        await rm(socketDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

const INIT_SCRIPT = fileURLToPath(new URL('./pglite-init.ts', import.meta.url));

/**
 * A new data directory is made by a short-lived child process (see pglite-init.ts for why),
 * in a sibling folder renamed into place when complete: a first start that is interrupted
 * leaves no half-made directory for the next start to trip on.
 */
const isDataDirectory = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'));

async function initialiseDataDirectory(dir: string): Promise<void> {
  // An empty folder (made by hand, or by an older version of this code) is replaced; one with
  // files but no PG_VERSION is not a database and not ours to remove or write into.
  if (existsSync(dir)) {
    if ((await readdir(dir)).length > 0) {
      throw new Error(`${dir} holds files but is not a PostgreSQL data directory (no PG_VERSION): move them away or choose another DATA_DIR`);
    }
    await rmdir(dir);
  }
  await mkdir(path.dirname(dir), { recursive: true });
  // What a first start killed mid-way left behind (one data directory has one process).
  const prefix = `${path.basename(dir)}.init-`;
  for (const name of await readdir(path.dirname(dir))) {
    if (name.startsWith(prefix)) await rm(path.join(path.dirname(dir), name), { recursive: true, force: true });
  }
  const staging = `${dir}.init-${process.pid}`;
  try {
    await promisify(execFile)(process.execPath, [INIT_SCRIPT, staging, JSON.stringify(PGLITE_OPTIONS.postgresqlconf)], { timeout: 120_000 });
    await rename(staging, dir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The database's files are its user's alone: folders 0700, files 0600, as PostgreSQL keeps its
 * own. The WASM file system gives the files it makes wider modes (up to 0666), so what earlier
 * runs left is set right at each start, and the folder's 0700 keeps everyone else out of what
 * is made while it runs. Synchronous, so nothing is awaited before the worker starts.
 */
function keepPrivate(dir: string): void {
  chmodSync(dir, 0o700);
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isDirectory()) chmodSync(full, 0o700);
    else if (entry.isFile()) chmodSync(full, 0o600);
  }
}

function wrap(kind: Database['kind'], knex: Knex, shutdown: () => Promise<void>): Database {
  let closing: Promise<void> | undefined;
  return {
    kind,
    knex,
    async ping() {
      await knex.raw('select 1');
    },
    close() {
      // Several owners (services sharing the embedded database, test teardown) may call close.
      closing ??= shutdown();
      return closing;
    },
  };
}
