import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import {
  createApp as createCatalogueApp,
  createContext as createCatalogueContext,
  loadConfig as loadCatalogueConfig,
  migrations as catalogueMigrations,
} from '@connectivity/catalogue';
import { startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import type { Environment, Esim, Order } from '@connectivity/contracts';
import { inventoryService, loadConfig as loadInventoryConfig, migrations as inventoryMigrations } from '@connectivity/inventory';
import {
  startService,
  closeServer,
  createLogger,
  listen,
  newId,
  runMigrations,
  type Bus,
  type Database,
  type InternalEvent,
  type StartedService,
  type Subscription,
} from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import { eventually } from '@connectivity/platform/testing';
export { eventually };
import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../src/app.ts';
import type { SimulatorContext } from '../src/context.ts';
import { createContext } from '../src/service.ts';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/db/migrations/index.ts';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';
export const BASE_URL = 'https://api.example.test';
const CURSOR_SECRET = 'test-cursor-secret-0123456789-abcdef';
const logger = createLogger({ name: 'sandbox-simulator-test', level: 'silent' });

export const identity = (environment: Environment, accountId = newId('account')) => ({
  accountId,
  environment,
  keyId: newId('apiKey'),
});
export type TestIdentity = ReturnType<typeof identity>;

/** The headers the gateway sends with a caller's request. */
export const headersFor = (who: TestIdentity): Record<string, string> => ({
  'x-internal-token': INTERNAL_TOKEN,
  'x-account-id': who.accountId,
  'x-environment': who.environment,
  'x-key-id': who.keyId,
  'x-request-id': newId('request'),
  'idempotency-key': `idem-${randomBytes(8).toString('hex')}`,
});

const urlOf = (server: Server): string => {
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('server did not bind');
  return `http://127.0.0.1:${address.port}`;
};

/** The simulator app on a real database and bus, called with the gateway's internal headers. */
export class SimulatorHarness {
  readonly app: Express;
  private readonly db: Database;
  private readonly bus: Bus;

  private constructor(app: Express, db: Database, bus: Bus) {
    this.app = app;
    this.db = db;
    this.bus = bus;
  }

  static async create(env: Record<string, string>, extra: Partial<SimulatorContext> = {}): Promise<SimulatorHarness> {
    const db = await createTestDatabase();
    await runMigrations(db.knex, migrations);
    const bus = await createTestBus();
    const config = loadConfig({ INTERNAL_TOKEN, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: BASE_URL, ...env });
    const app = createApp({ ...createContext({ db, bus, logger }, config), ...extra });
    return new SimulatorHarness(app, db, bus);
  }

  post(who: TestIdentity, path: string, body: unknown) {
    return request(this.app)
      .post(path)
      .set(headersFor(who))
      .send(body as object);
  }

  async close(): Promise<void> {
    await this.bus.close();
    await this.db.close();
  }
}

/**
 * The simulator in front of the REAL inventory, as in production: catalogue and inventory
 * listen on loopback ports (inventory with its outbox relay running, catalogue with the eSIM Go
 * fake as its live supplier), all on one fresh database and bus (PostgreSQL + NATS
 * when DATABASE_URL and NATS_URL are set, else PGlite + the in-process bus).
 */
export class UsageWorld {
  /** Every event published on the bus, in arrival order. */
  readonly events: InternalEvent[] = [];
  readonly simulator: SimulatorHarness;
  readonly inventory: Express;
  readonly db: Database;
  private readonly closers: (() => Promise<void>)[];

  private constructor(parts: { simulator: SimulatorHarness; inventory: Express; db: Database; closers: (() => Promise<void>)[] }) {
    this.simulator = parts.simulator;
    this.inventory = parts.inventory;
    this.db = parts.db;
    this.closers = parts.closers;
  }

  static async start(): Promise<UsageWorld> {
    const closers: (() => Promise<void>)[] = [];
    const supplier: EsimGoFake = await startEsimGoFake();
    closers.push(() => supplier.close());
    const db = await createTestDatabase();
    const bus = await createTestBus();
    closers.push(
      () => db.close(),
      () => bus.close(),
    );
    await runMigrations(db.knex, catalogueMigrations);
    await runMigrations(db.knex, inventoryMigrations);

    const catalogueConfig = loadCatalogueConfig({
      INTERNAL_TOKEN,
      CURSOR_SECRET,
      SUPPLIER_RETRIES: '0',
      LIVE_SUPPLIER: 'esim-go',
      ESIMGO_API_URL: supplier.url,
      ESIMGO_API_KEY: supplier.apiKey,
    });
    const catalogue = await listen(createCatalogueApp(createCatalogueContext({ db, bus, logger }, catalogueConfig)), 0, '127.0.0.1');
    closers.push(() => closeServer(catalogue));

    const inventoryConfig = loadInventoryConfig({
      INTERNAL_TOKEN,
      CURSOR_SECRET,
      CATALOGUE_URL: urlOf(catalogue),
      OUTBOX_POLL_INTERVAL_MS: '50',
    });
    const inventory: StartedService = await startService(inventoryService, { db, bus, logger }, inventoryConfig);
    closers.push(() => inventory.stop());
    const inventoryServer = await listen(inventory.app, 0, '127.0.0.1');
    closers.push(() => closeServer(inventoryServer));

    const simulator = await SimulatorHarness.create({ INVENTORY_URL: urlOf(inventoryServer) });
    closers.push(() => simulator.close());

    const world = new UsageWorld({ simulator, inventory: inventory.app, db, closers });
    const collector: Subscription = await bus.subscribe<InternalEvent>(
      { durable: `collector_${newId('request').slice(4)}`, filterSubjects: ['events.>'] },
      (msg) => {
        world.events.push(msg.payload);
        return Promise.resolve();
      },
    );
    closers.push(() => collector.stop());
    return world;
  }

  /** POST /v1/test/usage through the simulator. */
  usage(who: TestIdentity, esim: string, bytes: unknown) {
    return this.simulator.post(who, '/v1/test/usage', { esim, bytes });
  }

  /** Buys one eSIM through inventory's own public route. */
  async buy(who: TestIdentity, bundle: string): Promise<Esim> {
    const res = await request(this.inventory).post('/v1/esim').set(headersFor(who)).send({ bundle });
    if (res.status !== 201) throw new Error(`order failed: ${res.status} ${JSON.stringify(res.body)}`);
    const [esim] = (res.body as Order).esims;
    if (!esim) throw new Error('the order created no eSIM');
    return esim;
  }

  /** Moves an eSIM through inventory's PATCH, as a test key may. */
  async move(who: TestIdentity, id: string, ...states: string[]): Promise<void> {
    for (const state of states) {
      const res = await request(this.inventory).patch(`/v1/esim/${id}`).set(headersFor(who)).send({ state });
      if (res.status !== 200) throw new Error(`PATCH ${state} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
  }

  /** The eSIM as inventory answers it now. */
  async read(who: TestIdentity, id: string): Promise<Esim> {
    const res = await request(this.inventory).get(`/v1/esim/${id}`).set(headersFor(who));
    if (res.status !== 200) throw new Error(`GET failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Esim;
  }

  /** Verifies a live account and funds it, as the operator would, so it can buy live eSIMs. */
  async fundLive(accountId: string): Promise<void> {
    const res = await request(this.inventory)
      .put(`/internal/accounts/${accountId}`)
      // As the operator's admin API calls it: the internal token and a request id, no caller.
      .set({ 'x-internal-token': INTERNAL_TOKEN, 'x-request-id': newId('request') })
      .send({ verified: true, live_balance_cents: 100_000 });
    if (res.status !== 200) throw new Error(`funding failed: ${res.status} ${JSON.stringify(res.body)}`);
  }

  eventsOf(esimId: string): InternalEvent[] {
    return this.events.filter((e) => (e.data as { object?: { id?: string } }).object?.id === esimId);
  }

  async close(): Promise<void> {
    for (const close of [...this.closers].reverse()) await close();
  }
}
