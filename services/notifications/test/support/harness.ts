import { randomBytes } from 'node:crypto';
import type { EventType, Environment } from '@connectivity/contracts';
import {
  startService,
  buildEvent,
  createLogger,
  eventSubject,
  newId,
  runMigrations,
  type Bus,
  type Database,
  type InternalEvent,
  type StartedService,
} from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import request from 'supertest';
import { loadConfig, type Config } from '../../src/config.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { createNotificationsService } from '../../src/service.ts';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';

/** Settings that run the delivery machinery in milliseconds. */
export const FAST: Record<string, string> = {
  WEBHOOK_RETRY_SCHEDULE_MS: '100,200,200',
  WEBHOOK_RETRY_JITTER: '0',
  WEBHOOK_TIMEOUT_MS: '2000',
  DELIVERY_LEASE_MS: '5000',
  DELIVERY_POLL_INTERVAL_MS: '20',
  EVENT_REDELIVERY_BACKOFF_MS: '20',
  EVENT_MAX_DELIVER: '3',
};

export interface Caller {
  accountId: string;
  environment: Environment;
  keyId: string;
}

export const newAccount = () => `acct_${randomBytes(13).toString('hex')}`;
export const caller = (accountId: string, environment: Environment): Caller => ({
  accountId,
  environment,
  keyId: `key_${randomBytes(13).toString('hex')}`,
});

/** The headers the gateway sends with a caller's request. */
export const gatewayHeaders = (who: Caller): Record<string, string> => ({
  'x-internal-token': INTERNAL_TOKEN,
  'x-account-id': who.accountId,
  'x-environment': who.environment,
  'x-key-id': who.keyId,
  'x-request-id': newId('request'),
});

/** DNS for tests: names map to addresses and can be re-pointed (a rebinding attacker). */
export class FakeDns {
  private readonly table = new Map<string, string[]>();
  set(host: string, addresses: string[]): void {
    this.table.set(host, addresses);
  }
  resolve = (host: string): Promise<string[]> => {
    const found = this.table.get(host);
    return found ? Promise.resolve(found) : Promise.reject(new Error(`ENOTFOUND ${host}`));
  };
}

/**
 * One test file's world: its own database and bus, the real notifications service started on
 * them (as many instances as the test wants), and supertest calls with the gateway's headers.
 */
export class Harness {
  readonly dns = new FakeDns();
  /** For parts of the service a test drives itself. */
  readonly logger = createLogger({ name: 'notifications-test', level: 'silent' });
  readonly instances: StartedService[] = [];
  readonly db: Database;
  readonly bus: Bus;
  private readonly env: Record<string, string>;

  private constructor(db: Database, bus: Bus, env: Record<string, string>) {
    this.db = db;
    this.bus = bus;
    this.env = env;
  }

  /** `prepare` runs on the fresh database before the service's migrations (data from an older schema). */
  static async create(env: Record<string, string> = {}, prepare?: (db: Database) => Promise<void>): Promise<Harness> {
    const db = await createTestDatabase();
    await prepare?.(db);
    await runMigrations(db.knex, migrations);
    const bus = await createTestBus();
    return new Harness(db, bus, {
      INTERNAL_TOKEN,
      CURSOR_SECRET: randomBytes(32).toString('hex'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'silent',
      PUBLIC_BASE_URL: 'https://api.example.test',
      // The receivers of these tests listen on 127.0.0.1; the policy's own tests turn this off.
      WEBHOOK_ALLOW_PRIVATE: '1',
      ...FAST,
      ...env,
    });
  }

  /**
   * Starts an instance of the real service; `env` adds settings for this instance only. DNS is
   * `dns` (the test's table) unless `realDns`: then the service's own resolver, as configured.
   */
  async start(env: Record<string, string> = {}, options: { realDns?: boolean } = {}): Promise<StartedService> {
    const config: Config = loadConfig({ ...this.env, ...env });
    const service = createNotificationsService(options.realDns ? {} : { resolveHost: this.dns.resolve });
    const logger = createLogger({ name: 'notifications', level: config.LOG_LEVEL });
    const started = await startService(service, { db: this.db, bus: this.bus, logger }, config);
    this.instances.push(started);
    return started;
  }

  async stop(instance: StartedService): Promise<void> {
    await instance.stop();
    this.instances.splice(this.instances.indexOf(instance), 1);
  }

  private get app() {
    const first = this.instances[0];
    if (!first) throw new Error('start an instance first');
    return first.app;
  }

  private headers(who: Caller, idempotent = false, idempotencyKey?: string): Record<string, string> {
    return {
      ...gatewayHeaders(who),
      ...(idempotent && { 'idempotency-key': idempotencyKey ?? `idem-${randomBytes(8).toString('hex')}` }),
    };
  }

  get(who: Caller, path: string) {
    return request(this.app).get(path).set(this.headers(who));
  }
  /** A mutating call, with a fresh Idempotency-Key unless one is given (a retry). */
  post(who: Caller, path: string, body?: unknown, idempotencyKey?: string) {
    const req = request(this.app)
      .post(path)
      .set(this.headers(who, true, idempotencyKey));
    return body === undefined ? req : req.send(body as object);
  }
  patch(who: Caller, path: string, body: unknown) {
    return request(this.app)
      .patch(path)
      .set(this.headers(who, true))
      .send(body as object);
  }
  delete(who: Caller, path: string) {
    return request(this.app).delete(path).set(this.headers(who, true));
  }

  /** Creates a webhook endpoint and returns its id and secret. */
  async endpoint(who: Caller, url: string, enabledEvents: string[] = ['*']): Promise<{ id: string; secret: string }> {
    const res = await this.post(who, '/v1/webhooks', { url, enabled_events: enabledEvents });
    if (res.status !== 201) throw new Error(`endpoint not created: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string; secret: string };
  }

  /** Publishes an event the way inventory's outbox relay does. */
  async publish(who: Pick<Caller, 'accountId' | 'environment'>, type: EventType, data: Record<string, unknown> = {}, now?: Date): Promise<InternalEvent> {
    const event = buildEvent({ type, environment: who.environment, accountId: who.accountId, data, now });
    await this.bus.publish({ id: event.id, subject: eventSubject(event.environment, event.type), payload: event });
    return event;
  }

  async close(): Promise<void> {
    for (const instance of [...this.instances]) await this.stop(instance);
    await this.bus.close();
    await this.db.close();
  }
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, what = 'condition'): Promise<Exclude<T, false | undefined>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as Exclude<T, false | undefined>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
