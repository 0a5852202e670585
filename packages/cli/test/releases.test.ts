import type { Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { closeServer, createLogger, listen, newId, runMigrations, type Bus, type Database, type StartedService } from '@connectivity/platform';
import { createTestBus, createTestDatabase } from '@connectivity/platform/testing';
import { loadConfig, migrations, startGateway, type StartedGateway } from '@connectivity/gateway';
import { inventoryService, loadConfig as loadInventoryConfig, migrations as inventoryMigrations } from '@connectivity/inventory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.ts';

const INTERNAL_TOKEN = 'internal-token-for-tests-only';
const CURSOR_SECRET = 'a-cursor-secret-of-at-least-32-characters';
const logger = createLogger({ name: 'cli-releases-test', level: 'silent' });
let db: Database;
let bus: Bus;
let inventory: StartedService;
let inventoryServer: Server;
let gateway: StartedGateway;
let dataDir: string;

/** The real gateway in front of the real inventory service, on one database and bus. */
beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations(db.knex, migrations);
  await runMigrations(db.knex, inventoryMigrations);
  bus = await createTestBus();
  inventory = await inventoryService.start(
    { db, bus, logger },
    // No catalogue is needed: the releases below hold no profile, so the worker never calls it.
    loadInventoryConfig({ INTERNAL_TOKEN, CURSOR_SECRET, RELEASE_POLL_INTERVAL_MS: '100', SWEEPER_INTERVAL_MS: String(3_600_000) }),
  );
  inventoryServer = await listen(inventory.app, 0, '127.0.0.1');
  const address = inventoryServer.address();
  dataDir = await mkdtemp(path.join(tmpdir(), 'cli-releases-'));
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ADMIN_PORT: '0',
    INTERNAL_TOKEN,
    CURSOR_SECRET,
    INVENTORY_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
  });
  gateway = await startGateway({ db, bus, logger }, config);
});

afterAll(async () => {
  await gateway?.stop();
  if (inventoryServer) await closeServer(inventoryServer);
  await inventory?.stop();
  await bus?.close();
  await db?.close();
  await rm(dataDir, { recursive: true, force: true });
});

function capture() {
  const lines: string[] = [];
  return { lines, log: (line: string) => lines.push(line), text: () => lines.join('\n') };
}

const cli = async (...argv: string[]) => {
  const out = capture();
  const err = capture();
  const code = await run(argv, { env: { DATA_DIR: dataDir }, out, err });
  return { code, out: out.text(), err: err.text() };
};

/** An abandoned release as the worker leaves it when the supplier says it cannot terminate. */
async function abandoned(): Promise<string> {
  const id = newId('order');
  const now = Date.now();
  await db.knex('inventory.supplier_releases').insert({
    order_reference: id,
    account_id: newId('account'),
    iccids: [],
    reason: 'balance_insufficient',
    status: 'abandoned',
    attempts: 1,
    next_attempt_at: now,
    last_error: 'the supplier cannot terminate this profile',
    created_at: now,
    finished_at: now,
  });
  return id;
}

describe('pnpm cli releases', () => {
  it('lists abandoned releases, retries one, and sees it released by the worker', async () => {
    const id = await abandoned();
    const listed = await cli('releases', 'list', '--status', 'abandoned');
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toContain(`${id}  abandoned`);
    expect(listed.out).toContain('last error: the supplier cannot terminate this profile');

    const retried = await cli('releases', 'retry', id, '--json');
    expect(retried.code, retried.err).toBe(0);
    expect(JSON.parse(retried.out)).toMatchObject({ object: 'supplier_release', id, status: 'pending', attempts: 0 });

    const deadline = Date.now() + 10_000;
    for (;;) {
      const released = await cli('releases', 'list', '--status', 'released', '--json');
      if ((JSON.parse(released.out) as { id: string }[]).some((r) => r.id === id)) break;
      if (Date.now() > deadline) throw new Error(`release ${id} was never released: ${released.out}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await cli('releases', 'list', '--status', 'abandoned')).out).not.toContain(id);
    // Released: nothing is left to retry, and the operator is told so.
    const again = await cli('releases', 'retry', id);
    expect(again.code).toBe(1);
    expect(again.err).toMatch(/invalid_state_transition \(release_id\): .*already released/);
  });

  it('says so when there is nothing to list', async () => {
    const listed = await cli('releases', 'list', '--status', 'pending');
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toBe('No pending supplier releases.');
  });

  it('refuses a bad status or an unknown release with a message for a person', async () => {
    const bad = await cli('releases', 'list', '--status', 'lost');
    expect(bad.code).toBe(1);
    expect(bad.err).toBe('Error: --status must be one of pending, released, abandoned.');
    const unknown = await cli('releases', 'retry', newId('order'));
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^Error: resource_not_found \(release_id\)/);
    const missing = await cli('releases', 'retry');
    expect(missing.err).toBe('Error: Missing release id.');
  });
});
