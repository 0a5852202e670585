import { INTERNAL_HEADERS, type Environment } from '@connectivity/contracts';
import { createLogger, newId, runMigrations, type Bus, type Database } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import type { Express } from 'express';
import { createApp } from '../src/app.ts';
import { createContext } from '../src/service.ts';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { startFakeSupplier, type FakeSupplier } from '../src/clients/suppliers/wholesale/fake/index.ts';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';
export const CURSOR_SECRET = 'test-cursor-secret-0123456789-abcdef';

export interface Caller {
  accountId: string;
  environment: Environment;
  keyId: string;
}

export const newCaller = (environment: Environment, accountId = newId('account')): Caller => ({
  accountId,
  environment,
  keyId: newId('apiKey'),
});

/** The headers the gateway sends with a caller's request. */
export function headersFor(caller: Caller): Record<string, string> {
  return {
    [INTERNAL_HEADERS.token]: INTERNAL_TOKEN,
    [INTERNAL_HEADERS.accountId]: caller.accountId,
    [INTERNAL_HEADERS.environment]: caller.environment,
    [INTERNAL_HEADERS.keyId]: caller.keyId,
    [INTERNAL_HEADERS.requestId]: newId('request'),
  };
}

export interface CatalogueHarness {
  app: Express;
  db: Database;
  bus: Bus;
  supplier: FakeSupplier | undefined;
  close(): Promise<void>;
}

/**
 * The catalogue app on a fresh database (PostgreSQL with DATABASE_URL, else PGlite), with the
 * fake supplier as its live supplier unless `supplier: false`.
 */
export async function startCatalogue(
  options: { supplier?: boolean; env?: Record<string, string>; sharing?: CatalogueHarness } = {},
): Promise<CatalogueHarness> {
  const supplier = options.supplier === false ? undefined : await startFakeSupplier();
  // A second app may share a harness's database and bus (starting a database is the slow part).
  const shared = options.sharing;
  const db = shared?.db ?? (await createTestDatabase());
  if (!shared) await runMigrations(db.knex, migrations);
  const bus = shared?.bus ?? (await createTestBus());
  const config = loadConfig({
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'silent',
    ...(supplier && { SUPPLIER_URL: supplier.url, SUPPLIER_API_KEY: supplier.apiKey }),
    SUPPLIER_TIMEOUT_MS: '2000',
    SUPPLIER_RETRIES: '2',
    SUPPLIER_BREAKER_COOLDOWN_MS: '60000',
    ...options.env,
  });
  const logger = createLogger({ name: 'catalogue-test', level: 'silent' });
  const app = createApp(createContext({ db, bus, logger }, config));
  return {
    app,
    db,
    bus,
    supplier,
    async close() {
      await supplier?.close();
      if (shared) return;
      await bus.close();
      await db.close();
    },
  };
}
