import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, runMigrations, type Bus, type Database, type MigrationSet } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import { loadConfig, migrations, startGateway, type StartedGateway } from '@connectivity/gateway';

export const INTERNAL_TOKEN = 'internal-token-for-tests-only';
export const CURSOR_SECRET = 'a-cursor-secret-of-at-least-32-characters';
export const silentLogger = createLogger({ name: 'cli-test', level: 'silent' });

/** A real gateway with its admin API on a fresh database and bus; the CLI finds it through `dataDir`. */
export interface CliWorld {
  db: Database;
  bus: Bus;
  gateway: StartedGateway;
  dataDir: string;
  close(): Promise<void>;
}

/**
 * `prepare` runs on the database and bus before the gateway starts (e.g. another service whose
 * URL goes into `env`); its return value is a clean-up run after the gateway stopped.
 */
export async function startCliWorld(
  options: {
    env?: Record<string, string>;
    migrations?: MigrationSet[];
    prepare?: (db: Database, bus: Bus) => Promise<{ env?: Record<string, string>; close?: () => Promise<void> }>;
  } = {},
): Promise<CliWorld> {
  const db = await createTestDatabase();
  for (const set of [migrations, ...(options.migrations ?? [])]) await runMigrations(db.knex, set);
  const bus = await createTestBus();
  const prepared = (await options.prepare?.(db, bus)) ?? {};
  const dataDir = await mkdtemp(path.join(tmpdir(), 'cli-test-'));
  const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, ADMIN_PORT: '0', INTERNAL_TOKEN, CURSOR_SECRET, ...options.env, ...prepared.env });
  const gateway = await startGateway({ db, bus, logger: silentLogger }, config);
  return {
    db,
    bus,
    gateway,
    dataDir,
    async close() {
      await gateway.stop();
      await prepared.close?.();
      await bus.close();
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Collects what a command prints. */
export function capture() {
  const lines: string[] = [];
  return { lines, log: (line: string) => lines.push(line), text: () => lines.join('\n') };
}
