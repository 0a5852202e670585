import { closeServer, listen, newId, startService, type Database } from '@connectivity/platform';
import { inventoryService, loadConfig as loadInventoryConfig, migrations as inventoryMigrations } from '@connectivity/inventory';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.ts';
import { capture, CURSOR_SECRET, INTERNAL_TOKEN, silentLogger, startCliWorld, type CliWorld } from './support.ts';

let world: CliWorld;
let db: Database;
let dataDir: string;

/** The real gateway in front of the real inventory service, on one database and bus. */
beforeAll(async () => {
  world = await startCliWorld({
    migrations: [inventoryMigrations],
    async prepare(database, bus) {
      const inventory = await startService(
        inventoryService,
        { db: database, bus, logger: silentLogger },
        // No catalogue is needed: the releases below hold no profile, so the worker never calls it.
        loadInventoryConfig({ INTERNAL_TOKEN, CURSOR_SECRET, RELEASE_POLL_INTERVAL_MS: '100', SWEEPER_INTERVAL_MS: String(3_600_000) }),
      );
      const server = await listen(inventory.app, 0, '127.0.0.1');
      const address = server.address();
      return {
        env: { INVENTORY_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` },
        async close() {
          await closeServer(server);
          await inventory.stop();
        },
      };
    },
  });
  db = world.db;
  dataDir = world.dataDir;
});

afterAll(async () => {
  await world?.close();
});

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
