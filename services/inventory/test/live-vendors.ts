import type { Server } from 'node:http';
import {
  createApp as createCatalogueApp,
  createContext as createCatalogueContext,
  loadConfig as loadCatalogueConfig,
  migrations as catalogueMigrations,
} from '@connectivity/catalogue';
import { EVENT_SUBJECT_FILTERS, type Order, type SupplierVendor } from '@connectivity/contracts';
import { optInAiraloWebhook, startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake } from '@connectivity/fake-suppliers';
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
import express, { type Express } from 'express';
import request from 'supertest';
import { expect } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { inventoryService } from '../src/service.ts';
import { headersFor, INTERNAL_TOKEN, newCaller, operatorHeaders, type Caller } from './support.ts';

const CURSOR_SECRET = 'test-cursor-secret-0123456789-abcdef';
const logger = createLogger({ name: 'inventory-live-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A 1 GB, 7-day bundle of each vendor's fake catalogue. */
export const VENDOR_BUNDLES: Record<SupplierVendor, string> = { airalo: 'change-7days-1gb', 'esim-go': 'esim_1GB_7D_GB_V2' };

export interface LiveHarness {
  vendor: SupplierVendor;
  fake: AiraloFake | EsimGoFake;
  app: Express;
  /** catalogue's base URL, for a worker a test runs itself. */
  catalogueUrl: string;
  /** catalogue's app: where the vendor's callbacks go (the gateway's hook passes them there). */
  catalogueApp: Express;
  /** Every request catalogue's server took from inventory (`METHOD /path`), in order. */
  catalogueRequests: string[];
  db: Database;
  events: InternalEvent[];
  /** Events of one eSIM, thresholds written `esim.usage.threshold:<percent>`. */
  eventsOf(esimId: string): string[];
  /** A verified, funded live account. */
  account(): Promise<Caller>;
  /** POST /v1/esim as the gateway forwards it (with this Idempotency-Key). */
  order(caller: Caller, body: object, idempotencyKey?: string): request.Test;
  buy(caller: Caller, quantity: number): Promise<Order>;
  /** Callbacks the vendor sent to our hook and what we answered. */
  hookAnswers: number[];
  close(): Promise<void>;
}

/**
 * inventory and catalogue on a fresh database and bus, catalogue's live supplier being the fake of
 * `vendor` (its API, its signed callbacks). The vendor's callbacks reach catalogue's callback route
 * through a small relay that does what the gateway's hook does (the exact bytes, the headers);
 * catalogue hands their reports to inventory on the bus (record 0262).
 */
export interface LiveOptions {
  /** catalogue's settings over the harness's own. */
  catalogueEnv?: Record<string, string>;
  /** The fake's options (e.g. `refundsEnabled` at eSIM Go, `refundReview` at Airalo). */
  fake?: Record<string, unknown>;
}

export async function startLiveInventory(vendor: SupplierVendor, inventoryEnv: Record<string, string> = {}, options: LiveOptions = {}): Promise<LiveHarness> {
  const db = await createTestDatabase();
  await runMigrations(db.knex, catalogueMigrations);
  await runMigrations(db.knex, migrations);
  const bus: Bus = await createTestBus();
  const servers: Server[] = [];
  const services: StartedService[] = [];

  // The relay: the gateway's hook, reduced to what catalogue sees of it.
  // Set once catalogue runs (the relay listens before: the vendor's fake needs its URL).
  const target: { app?: Express } = {};
  const hookAnswers: number[] = [];
  const relay = express();
  relay.use(express.raw({ type: () => true, limit: '256kb' }));
  relay.all('/hooks/:vendor', async (req, res) => {
    if (req.method === 'HEAD' || !target.app) {
      res.status(200).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])));
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const answer = await request(target.app)
      .post(`/internal/supplier-callbacks/${String(req.params.vendor)}`)
      .set(operatorHeaders())
      .send({ body_base64: body.toString('base64'), headers });
    hookAnswers.push(answer.status);
    res.status(answer.status).json(answer.body);
  });
  const relayServer = await listen(relay, 0, '127.0.0.1');
  servers.push(relayServer);
  const relayAddress = relayServer.address();
  if (typeof relayAddress !== 'object' || relayAddress === null) throw new Error('relay did not bind');
  const hook = `http://127.0.0.1:${relayAddress.port}/hooks/${vendor}`;

  const fake =
    vendor === 'esim-go'
      ? await startEsimGoFake({ callbackUrl: hook, ...options.fake })
      : await startAiraloFake({ checkWebhookOnOptIn: false, usageCacheMs: 0, ...options.fake });
  const supplierEnv =
    'credentials' in fake
      ? {
          LIVE_SUPPLIER: 'airalo',
          AIRALO_API_URL: fake.url,
          AIRALO_CLIENT_ID: fake.credentials.clientId,
          AIRALO_CLIENT_SECRET: fake.credentials.clientSecret,
          // The fake answers live usage unless a test turns its cache on (then it says so here too).
          AIRALO_USAGE_CACHE_MS: String((options.fake?.usageCacheMs as number | undefined) ?? 0),
          // Larger orders go through orders-async, whose webhook comes to our hook.
          AIRALO_WEBHOOK_URL: hook,
        }
      : { LIVE_SUPPLIER: 'esim-go', ESIMGO_API_URL: fake.url, ESIMGO_API_KEY: fake.apiKey };
  if ('credentials' in fake) {
    await optInAiraloWebhook(fake, hook);
    await fake.control.resetObservations();
  }

  const catalogueConfig = loadCatalogueConfig({
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    LOG_LEVEL: 'silent',
    SUPPLIER_RETRIES: '0',
    SUPPLIER_TIMEOUT_MS: '3000',
    ...supplierEnv,
    ...options.catalogueEnv,
  });
  const catalogueApp = createCatalogueApp(createCatalogueContext({ db, bus, logger }, catalogueConfig));
  const catalogueServer = await listen(catalogueApp, 0, '127.0.0.1');
  servers.push(catalogueServer);
  const catalogueRequests: string[] = [];
  catalogueServer.on('request', (req: { method?: string; url?: string }) => catalogueRequests.push(`${req.method ?? ''} ${req.url ?? ''}`));
  const catalogueAddress = catalogueServer.address();
  if (typeof catalogueAddress !== 'object' || catalogueAddress === null) throw new Error('catalogue did not bind');

  const config = loadConfig({
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    CATALOGUE_URL: `http://127.0.0.1:${String(catalogueAddress.port)}`,
    SWEEPER_INTERVAL_MS: String(24 * 3_600_000),
    OUTBOX_POLL_INTERVAL_MS: '50',
    RELEASE_POLL_INTERVAL_MS: '100',
    RELEASE_RETRY_BASE_MS: '50',
    RELEASE_RETRY_MAX_MS: '200',
    SUPPLIER_REPORTS_POLL_INTERVAL_MS: '200',
    // Tests that want reconciliation say how often.
    SUPPLIER_RECONCILE_INTERVAL_MS: String(24 * 3_600_000),
    PURCHASE_INTENT_POLL_INTERVAL_MS: String(24 * 3_600_000),
    ...inventoryEnv,
  });
  const started = await startService(inventoryService, { db, bus, logger }, config);
  services.push(started);
  target.app = catalogueApp;
  const app = started.app;
  const catalogueUrl = `http://127.0.0.1:${catalogueAddress.port}`;

  const events: InternalEvent[] = [];
  const subscription = await bus.subscribe<InternalEvent>(
    { durable: `collector_${newId('request').slice(4)}`, filterSubjects: [...EVENT_SUBJECT_FILTERS] },
    (msg) => {
      events.push(msg.payload);
      return Promise.resolve();
    },
  );

  const order = (caller: Caller, body: object, idempotencyKey = `idem-${newId('request')}`) =>
    request(app).post('/v1/esim').set(headersFor(caller)).set('Idempotency-Key', idempotencyKey).send(body);

  return {
    vendor,
    fake,
    app,
    catalogueUrl,
    catalogueApp,
    catalogueRequests,
    db,
    events,
    eventsOf: (esimId) =>
      events
        .filter((event) => (event.data as { object?: { id?: string } }).object?.id === esimId)
        .map((event) => {
          const percent = (event.data as { threshold_percent?: number }).threshold_percent;
          return percent === undefined ? event.type : `${event.type}:${percent}`;
        }),
    async account() {
      const caller = newCaller('live');
      const res = await request(app)
        .put(`/internal/accounts/${caller.accountId}`)
        .set(operatorHeaders())
        .send({ verified: true, live_balance_cents: 10_000_000 });
      expect(res.status).toBe(200);
      return caller;
    },
    order,
    async buy(caller, quantity) {
      const res = await order(caller, { bundle: VENDOR_BUNDLES[vendor], quantity });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as Order;
    },
    hookAnswers,
    async close() {
      await subscription.stop();
      for (const service of services) await service.stop();
      for (const server of servers) await closeServer(server);
      await fake.close();
      await bus.close();
      await db.close();
    },
  };
}
