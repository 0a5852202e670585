import type { Server } from 'node:http';
import {
  createApp as createCatalogueApp,
  createContext as createCatalogueContext,
  loadConfig as loadCatalogueConfig,
  migrations as catalogueMigrations,
} from '@connectivity/catalogue';
import { startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { INTERNAL_HEADERS, type Environment, type Esim, type Order } from '@connectivity/contracts';
import {
  closeServer,
  createLogger,
  listen,
  newId,
  runMigrations,
  startService,
  type Bus,
  type Database,
  type InternalEvent,
  type StartedService,
} from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import { eventually } from '@connectivity/platform/testing';
export { eventually };
import type { Express } from 'express';
import request from 'supertest';
import { expect } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { inventoryService } from '../src/service.ts';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';
const CURSOR_SECRET = 'test-cursor-secret-0123456789-abcdef';
const logger = createLogger({ name: 'inventory-test', level: 'silent' });

export interface Caller {
  accountId: string;
  environment: Environment;
  keyId: string;
}

export const newCaller = (environment: Environment, accountId = newId('account')): Caller => ({ accountId, environment, keyId: newId('apiKey') });

/** The same account with a key of the other environment. */
export const otherEnvironment = (caller: Caller): Caller => newCaller(caller.environment === 'test' ? 'live' : 'test', caller.accountId);

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

/** The headers of the operator's calls (the admin API): the internal token and a request id, no caller. */
export function operatorHeaders(): Record<string, string> {
  return { [INTERNAL_HEADERS.token]: INTERNAL_TOKEN, [INTERNAL_HEADERS.requestId]: newId('request') };
}

const idempotencyKey = () => `idem-${newId('request')}`;

export interface Harness {
  app: Express;
  db: Database;
  bus: Bus;
  /** The live supplier: the eSIM Go fake (its API, its control surface). */
  supplier: EsimGoFake;
  /** Requests catalogue has had, by path. */
  catalogueCalls: Map<string, number>;
  /** catalogue's base URL, for a worker a test runs itself. */
  catalogueUrl: string;
  /** Every event published on the bus, in arrival order. */
  events: InternalEvent[];
  eventsOf(esimId: string): InternalEvent[];
  order(caller: Caller, body: object): request.Test;
  patch(caller: Caller, id: string, state: string): request.Test;
  /** PATCH /v1/esim/{id} with any body (state, metadata or both). */
  update(caller: Caller, id: string, body: object): request.Test;
  /** GET /v1/esim/{id}/qr_code, the body kept as bytes whatever its type. */
  qrCode(caller: Caller, id: string, accept?: string): request.Test;
  usage(caller: Caller, id: string, bytes: number): request.Test;
  get(caller: Caller, path: string): request.Test;
  /** Verifies a live account and gives it a balance, as the operator would. */
  fund(accountId: string, settings: { verified?: boolean; live_balance_cents?: number }): Promise<void>;
  /** An inventory app whose catalogue has no live supplier configured. */
  withoutSupplier(): Promise<Express>;
  close(): Promise<void>;
}

/** A 1 GB, 7-day bundle the eSIM Go fake sells (the live bundle of these tests). */
export const LIVE_BUNDLE = 'esim_1GB_7D_GB_V2';

async function startCatalogueServer(db: Database, bus: Bus, supplier?: EsimGoFake): Promise<{ url: string; server: Server }> {
  const config = loadCatalogueConfig({
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'silent',
    SUPPLIER_RETRIES: '0',
    SUPPLIER_TIMEOUT_MS: '3000',
    ...(supplier && { LIVE_SUPPLIER: 'esim-go', ESIMGO_API_URL: supplier.url, ESIMGO_API_KEY: supplier.apiKey }),
  });
  const server = await listen(createCatalogueApp(createCatalogueContext({ db, bus, logger }, config)), 0, '127.0.0.1');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('catalogue did not bind');
  return { url: `http://127.0.0.1:${address.port}`, server };
}

const inventoryConfig = (catalogueUrl: string, env: NodeJS.ProcessEnv = {}) =>
  loadConfig({
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    CATALOGUE_URL: catalogueUrl,
    // Tests run the sweeper themselves, with a clock of their choosing.
    SWEEPER_INTERVAL_MS: String(24 * 3_600_000),
    OUTBOX_POLL_INTERVAL_MS: '50',
    // Releases of unrecorded supplier orders, retried in milliseconds rather than minutes.
    RELEASE_POLL_INTERVAL_MS: '100',
    RELEASE_RETRY_BASE_MS: '50',
    RELEASE_RETRY_MAX_MS: '200',
    ...env,
  });

/**
 * inventory as the gateway sees it, on a fresh database and bus (PostgreSQL + NATS when
 * DATABASE_URL and NATS_URL are set, else PGlite + the in-process bus), with catalogue
 * listening on a loopback port and the eSIM Go fake as its live supplier; `env` sets more of its
 * configuration (a test's quotas).
 */
export async function startInventory(env: NodeJS.ProcessEnv = {}): Promise<Harness> {
  const supplier = await startEsimGoFake();
  const db = await createTestDatabase();
  await runMigrations(db.knex, catalogueMigrations);
  await runMigrations(db.knex, migrations);
  const bus = await createTestBus();
  const catalogue = await startCatalogueServer(db, bus, supplier);
  const catalogueCalls = new Map<string, number>();
  catalogue.server.on('request', (req: { url?: string }) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    catalogueCalls.set(path, (catalogueCalls.get(path) ?? 0) + 1);
  });
  const servers = [catalogue.server];
  const services: StartedService[] = [await startService(inventoryService, { db, bus, logger }, inventoryConfig(catalogue.url, env))];
  const started = services[0];
  if (!started) throw new Error('inventory did not start');

  const events: InternalEvent[] = [];
  const subscription = await bus.subscribe<InternalEvent>({ durable: `collector_${newId('request').slice(4)}`, filterSubjects: ['events.>'] }, (msg) => {
    events.push(msg.payload);
    return Promise.resolve();
  });

  const app = started.app;
  return {
    app,
    db,
    bus,
    supplier,
    catalogueCalls,
    catalogueUrl: catalogue.url,
    events,
    eventsOf: (esimId) => events.filter((e) => (e.data as { object?: { id?: string } }).object?.id === esimId),
    order: (caller, body) => request(app).post('/v1/esim').set(headersFor(caller)).set('Idempotency-Key', idempotencyKey()).send(body),
    patch: (caller, id, state) => request(app).patch(`/v1/esim/${id}`).set(headersFor(caller)).set('Idempotency-Key', idempotencyKey()).send({ state }),
    update: (caller, id, body) => request(app).patch(`/v1/esim/${id}`).set(headersFor(caller)).set('Idempotency-Key', idempotencyKey()).send(body),
    qrCode: (caller, id, accept) => {
      const req = request(app).get(`/v1/esim/${id}/qr_code`).set(headersFor(caller));
      if (accept !== undefined) req.set('Accept', accept);
      return req.buffer(true).parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    },
    usage: (caller, id, bytes) => request(app).post(`/internal/esims/${id}/usage`).set(headersFor(caller)).send({ bytes }),
    get: (caller, path) => request(app).get(path).set(headersFor(caller)),
    async fund(accountId, settings) {
      const res = await request(app).put(`/internal/accounts/${accountId}`).set(operatorHeaders()).send(settings);
      expect(res.status).toBe(200);
    },
    async withoutSupplier() {
      const bare = await startCatalogueServer(db, bus);
      servers.push(bare.server);
      const other = await startService(inventoryService, { db, bus, logger }, inventoryConfig(bare.url));
      services.push(other);
      return other.app;
    },
    async close() {
      await subscription.stop();
      for (const service of services) await service.stop();
      for (const server of servers) await closeServer(server);
      await supplier.close();
      await bus.close();
      await db.close();
    },
  };
}

/** Buys one eSIM (a sandbox one for a test caller, one from the eSIM Go fake for a live caller) and returns it. */
export async function buyEsim(h: Harness, caller: Caller, bundle = caller.environment === 'live' ? LIVE_BUNDLE : 'esim_5GB_30D_EU'): Promise<Esim> {
  const res = await h.order(caller, { bundle });
  expect(res.status).toBe(201);
  const [esim] = (res.body as Order).esims;
  if (!esim) throw new Error('the order created no eSIM');
  return esim;
}

/** The types of the events published for one eSIM, once `count` of them have arrived. */
export async function eventTypesOf(h: Harness, esimId: string, count: number): Promise<string[]> {
  return eventually(() => {
    const types = h.eventsOf(esimId).map((e) => e.type);
    expect(types.length).toBeGreaterThanOrEqual(count);
    return types;
  });
}

/** The state of the bundle on a profile at the eSIM Go fake (`active`, `revoked`, …); undefined if it has none. */
export function supplierBundleState(h: Harness, iccid: string): string | undefined {
  const esim = h.supplier.control.esim(iccid) as { bundles?: { assignments?: { bundleState?: string }[] }[] } | undefined;
  return esim?.bundles?.[0]?.assignments?.[0]?.bundleState;
}

/** Calls the eSIM Go fake has had with `method` on a path containing `fragment` (e.g. `DELETE`, `/bundles/`). */
export function supplierCalls(h: Harness, method: string, fragment: string): number {
  return Object.entries(h.supplier.control.counters().calls)
    .filter(([key]) => key.startsWith(`${method} `) && key.includes(fragment))
    .reduce((sum, [, count]) => sum + count, 0);
}

/** Clears the fake's faults and what it counted (what it sold stays). */
export async function resetSupplier(h: Harness): Promise<void> {
  await h.supplier.control.clearFaults();
  await h.supplier.control.resetObservations();
}
