import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, runMigrations, type Database } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import * as init from '../src/db/migrations/0001_init.ts';
import { SCHEMA } from '../src/db/schema.ts';
import { createSecretBox } from '../src/domain/secret-box.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await Receiver.start();
});
afterAll(async () => {
  await receiver?.close();
});

/** Every row of every table of the service's schema, as text: what a database dump would show. */
async function dumpSchema(db: Database): Promise<string> {
  const tables = (await db.knex('information_schema.tables').where({ table_schema: SCHEMA }).pluck('table_name')) as string[];
  const dumps = await Promise.all(tables.map(async (table) => JSON.stringify(await db.knex(`${SCHEMA}.${table}`).select())));
  return dumps.join('\n');
}

/** The parts of a `whsec_` secret that would give it away: the whole and its key bytes in every encoding. */
const tellTales = (secret: string): string[] => {
  const body = secret.slice('whsec_'.length);
  const bytes = Buffer.from(body, 'base64');
  return [secret, body, bytes.toString('hex'), bytes.toString('base64url')];
};

describe('signing secrets at rest', () => {
  it('never stores the plain secret, and deliveries still verify with standardwebhooks', async () => {
    const key = randomBytes(32).toString('hex');
    const h = await Harness.create({ WEBHOOK_SECRET_KEY: key });
    try {
      await h.start();
      const me = caller(newAccount(), 'test');
      const endpoint = await h.endpoint(me, receiver.url('/sealed'));
      receiver.secret('/sealed', endpoint.secret);
      const event = await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
      await eventually(() => receiver.hits('/sealed').some((r) => r.id === event.id), 10_000, 'the signed delivery');
      expect(receiver.rejected.filter((r) => r.path === '/sealed')).toEqual([]);

      const dump = await dumpSchema(h.db);
      for (const tell of tellTales(endpoint.secret)) expect(dump).not.toContain(tell);
      const row = await h.db.knex('notifications.endpoints').where({ id: endpoint.id }).first();
      expect(row.secret).toBeNull();
      expect(row.secret_sealed).toMatch(new RegExp(`^v1\\.${createSecretBox(Buffer.from(key, 'hex')).keyId}\\.`));
    } finally {
      await h.close();
    }
  });

  it('seals secrets stored plain by the earlier schema at start, and their deliveries verify', async () => {
    const me = caller(newAccount(), 'test');
    const legacySecret = `whsec_${randomBytes(24).toString('base64')}`;
    const id = 'we_01jlegacy0000000000000000';
    const h = await Harness.create({}, async (db) => {
      // The schema and row as they were before encryption at rest.
      await runMigrations(db.knex, { schema: SCHEMA, migrations: { '0001_init': init } });
      const now = Math.floor(Date.now() / 1000);
      await db.knex('notifications.endpoints').insert({
        id,
        account_id: me.accountId,
        environment: 'test',
        url: receiver.url('/legacy'),
        enabled_events: JSON.stringify(['*']),
        secret: legacySecret,
        created_at: now,
        updated_at: now,
      });
    });
    try {
      expect((await h.db.knex('notifications.endpoints').where({ id }).first()).secret).toBe(legacySecret);
      await h.start();
      for (const tell of tellTales(legacySecret)) expect(await dumpSchema(h.db)).not.toContain(tell);

      receiver.secret('/legacy', legacySecret);
      const event = await h.publish(me, 'esim.expired', { object: esim('expired'), previous_state: 'active' });
      await eventually(() => receiver.hits('/legacy').some((r) => r.id === event.id), 10_000, 'the delivery signed with the old secret');
      expect(receiver.rejected.filter((r) => r.path === '/legacy')).toEqual([]);
    } finally {
      await h.close();
    }
  });

  it('refuses to start with a key the stored secrets were not sealed with', async () => {
    const h = await Harness.create({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex') });
    try {
      const first = await h.start();
      await h.endpoint(caller(newAccount(), 'test'), receiver.url('/rekeyed'));
      await h.stop(first);
      const failure: unknown = await h.start({ WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') }).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ConfigError);
      expect((failure as Error).message).toMatch(/do not open with WEBHOOK_SECRET_KEY .*: 1 endpoint\(s\) sealed with key [0-9a-f]{16}/);
      expect(h.instances).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});

describe('WEBHOOK_SECRET_KEY', () => {
  const base = { INTERNAL_TOKEN: 'test-internal-token-0123456789', CURSOR_SECRET: randomBytes(32).toString('hex') };

  it('is required with a database server', () => {
    expect(() => loadConfig({ ...base, DATABASE_URL: 'postgres://db.example.test/x' })).toThrow(/WEBHOOK_SECRET_KEY is required/);
  });

  it('takes 32 bytes as hex or base64, and nothing else', () => {
    const key = randomBytes(32);
    expect(loadConfig({ ...base, WEBHOOK_SECRET_KEY: key.toString('hex') }).WEBHOOK_SECRET_KEY).toEqual(key);
    expect(loadConfig({ ...base, WEBHOOK_SECRET_KEY: key.toString('base64') }).WEBHOOK_SECRET_KEY).toEqual(key);
    expect(loadConfig({ ...base, WEBHOOK_SECRET_KEY: key.toString('base64url') }).WEBHOOK_SECRET_KEY).toEqual(key);
    expect(() => loadConfig({ ...base, WEBHOOK_SECRET_KEY: randomBytes(16).toString('hex') })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, WEBHOOK_SECRET_KEY: 'not a key' })).toThrow(ConfigError);
  });

  it('is made once and kept in DATA_DIR (mode 0600) in embedded mode, so a restart opens the same rows', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'notifications-key-'));
    try {
      const first = loadConfig({ ...base, DATA_DIR: dataDir }).WEBHOOK_SECRET_KEY;
      const file = path.join(dataDir, 'webhook-secret.key');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await readFile(file, 'utf8')).trim()).toBe(first.toString('hex'));
      expect(loadConfig({ ...base, DATA_DIR: dataDir }).WEBHOOK_SECRET_KEY).toEqual(first);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('is random and written nowhere for an in-memory database', () => {
    const a = loadConfig({ ...base, DATA_DIR: 'memory://' }).WEBHOOK_SECRET_KEY;
    const b = loadConfig({ ...base, DATA_DIR: 'memory://' }).WEBHOOK_SECRET_KEY;
    expect(a).toHaveLength(32);
    expect(a).not.toEqual(b);
  });
});

describe('the secret box', () => {
  const box = createSecretBox(randomBytes(32));
  const secret = `whsec_${randomBytes(24).toString('base64')}`;

  it('opens what it sealed, for the same endpoint only', () => {
    const sealed = box.seal(secret, 'we_a');
    expect(sealed).not.toContain(secret.slice(6));
    expect(box.open(sealed, 'we_a')).toBe(secret);
    expect(() => box.open(sealed, 'we_b')).toThrow(/failed authentication/);
  });

  it('refuses an altered value and one sealed with another key', () => {
    const sealed = box.seal(secret, 'we_a');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3]!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString('base64url');
    expect(() => box.open(parts.join('.'), 'we_a')).toThrow(/failed authentication/);
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'we_a')).toThrow(/not the configured key/);
    expect(() => box.open(secret, 'we_a')).toThrow(/not a sealed webhook secret/);
  });

  it('seals the same secret differently each time (a fresh IV)', () => {
    expect(box.seal(secret, 'we_a')).not.toBe(box.seal(secret, 'we_a'));
  });
});
