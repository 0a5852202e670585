import { INTERNAL_HEADERS, type Environment } from '@connectivity/contracts';
import { createLogger, newId, runMigrations, type Bus, type Database } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import type { Express } from 'express';
import { createApp } from '../src/app.ts';
import { createContext } from '../src/service.ts';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';

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

/** The headers of a call made for no account (a supplier callback passed on by the gateway). */
export function systemHeaders(): Record<string, string> {
  return { [INTERNAL_HEADERS.token]: INTERNAL_TOKEN, [INTERNAL_HEADERS.requestId]: newId('request') };
}

export type FakeVendor = AiraloFake | EsimGoFake;

export interface CatalogueHarness<F extends FakeVendor | undefined = FakeVendor | undefined> {
  app: Express;
  db: Database;
  bus: Bus;
  supplier: F;
  close(): Promise<void>;
}

/** The settings that point catalogue's live supplier at a fake. */
export function liveSupplierEnv(fake: FakeVendor): Record<string, string> {
  return 'credentials' in fake
    ? { LIVE_SUPPLIER: 'airalo', AIRALO_API_URL: fake.url, AIRALO_CLIENT_ID: fake.credentials.clientId, AIRALO_CLIENT_SECRET: fake.credentials.clientSecret }
    : { LIVE_SUPPLIER: 'esim-go', ESIMGO_API_URL: fake.url, ESIMGO_API_KEY: fake.apiKey };
}

/**
 * The catalogue app on a fresh database (PostgreSQL with DATABASE_URL, else PGlite), with a fake
 * vendor (eSIM Go unless named) as its live supplier, or none with `supplier: false`.
 */
export async function startCatalogue<F extends FakeVendor | undefined = FakeVendor | undefined>(
  options: { supplier?: 'airalo' | 'esim-go' | false | FakeVendor; env?: Record<string, string>; sharing?: CatalogueHarness } = {},
): Promise<CatalogueHarness<F>> {
  const choice = options.supplier ?? 'esim-go';
  const supplier: FakeVendor | undefined =
    choice === false ? undefined : choice === 'airalo' ? await startAiraloFake({ usageCacheMs: 0 }) : choice === 'esim-go' ? await startEsimGoFake() : choice;
  const owned = typeof choice === 'string';
  // A second app may share a harness's database and bus (starting a database is the slow part).
  const shared = options.sharing;
  const db = shared?.db ?? (await createTestDatabase());
  if (!shared) await runMigrations(db.knex, migrations);
  const bus = shared?.bus ?? (await createTestBus());
  const config = loadConfig({
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'silent',
    ...(supplier && liveSupplierEnv(supplier)),
    // Every test reads the vendor: a cached catalogue would hide what it does.
    SUPPLIER_CATALOGUE_TTL_MS: '0',
    SUPPLIER_CATALOGUE_MAX_STALE_MS: '0',
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
    supplier: supplier as F,
    async close() {
      if (owned) await supplier?.close();
      if (shared) return;
      await bus.close();
      await db.close();
    },
  };
}
