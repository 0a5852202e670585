import { randomBytes } from 'node:crypto';
import type { Environment } from '@connectivity/contracts';
import { createLogger, newId, runMigrations, type Database, type Bus } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import type { Express } from 'express';
import request from 'supertest';
import { createApp, type AppDeps } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/db/migrations/index.ts';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789';
export const BASE_URL = 'https://api.example.test';

export const identity = (environment: Environment) => ({
  accountId: `acct_${randomBytes(13).toString('hex')}`,
  environment,
  keyId: `key_${randomBytes(13).toString('hex')}`,
});
export type TestIdentity = ReturnType<typeof identity>;

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

  static async create(env: Record<string, string>, extra: Partial<AppDeps> = {}): Promise<SimulatorHarness> {
    const db = await createTestDatabase();
    await runMigrations(db.knex, migrations);
    const bus = await createTestBus();
    const config = loadConfig({ INTERNAL_TOKEN, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: BASE_URL, ...env });
    const app = createApp({ db, bus, logger: createLogger({ name: 'sandbox-simulator', level: 'silent' }), config, ...extra });
    return new SimulatorHarness(app, db, bus);
  }

  post(who: TestIdentity, path: string, body: unknown) {
    return request(this.app)
      .post(path)
      .set({
        'x-internal-token': INTERNAL_TOKEN,
        'x-account-id': who.accountId,
        'x-environment': who.environment,
        'x-key-id': who.keyId,
        'x-request-id': newId('request'),
        'idempotency-key': `idem-${randomBytes(8).toString('hex')}`,
      })
      .send(body as object);
  }

  async close(): Promise<void> {
    await this.bus.close();
    await this.db.close();
  }
}
