import { randomBytes } from 'node:crypto';
import { createLogger, type Bus, type Database } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import { startComposition, type Composition } from './compose.ts';

export interface Reply {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; param?: string } };
  headers: Headers;
}

/** The whole system on a throwaway database and bus, for the end-to-end tests and the bench. */
export interface LocalStack {
  db: Database;
  bus: Bus;
  composition: Composition;
  /** A public API call with `key`; mutating calls get a fresh Idempotency-Key. */
  call(key: string, method: string, path: string, body?: unknown): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * Starts every service like `pnpm start` does, on a fresh database and bus (PostgreSQL + NATS
 * when DATABASE_URL / NATS_URL are set, PGlite + in-process otherwise), with fresh secrets.
 */
export async function startLocalStack(env: NodeJS.ProcessEnv = {}): Promise<LocalStack> {
  const db = await createTestDatabase();
  const bus = await createTestBus();
  const composition = await startComposition({
    runtime: { db, bus, logger: createLogger({ name: 'local-stack', level: env.LOG_LEVEL ?? 'warn' }) },
    env: {
      INTERNAL_TOKEN: randomBytes(24).toString('base64url'),
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      ADMIN_PORT: '0',
      LOG_LEVEL: 'warn',
      ...env,
    },
    port: 0,
    host: '127.0.0.1',
  });
  return {
    db,
    bus,
    composition,
    async call(key, method, path, body) {
      const response = await fetch(`${composition.gatewayUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(method === 'GET' ? {} : { 'idempotency-key': randomBytes(12).toString('hex') }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Reply['body'], headers: response.headers };
    },
    async close() {
      await composition.stop();
      await bus.close();
      await db.close();
    },
  };
}
