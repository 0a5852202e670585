import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiEvent, Order } from '@connectivity/contracts';
import { createAccount, KEY_CHANGES_SUBJECT, rotateKey } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';
import { startCuttableProxy } from './support/cuttable-proxy.ts';
import { startReceiver } from './support/receiver.ts';

const cliMain = fileURLToPath(new URL('../../cli/src/main.ts', import.meta.url));

/**
 * `pnpm cli listen` as an integrator runs it, as its own process, against the whole stack (on
 * PostgreSQL + NATS when configured, else PGlite + the in-process bus): a local receiver verifies
 * every delivery with `standardwebhooks` and the secret the CLI printed; the connection is cut
 * in the middle (a network drop, between the CLI and the gateway) while orders go on, and every
 * event still arrives, verified.
 */
describe('pnpm cli listen', () => {
  let stack: LocalStack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let proxy: Awaited<ReturnType<typeof startCuttableProxy>>;
  let cli: ChildProcess | undefined;
  let testKey = '';
  const lines: string[] = [];

  const waitForLine = async (pattern: RegExp, after = 0, timeoutMs = 20_000) => {
    await expect.poll(() => lines.slice(after).some((line) => pattern.test(line)), { timeout: timeoutMs }).toBe(true);
    return lines.slice(after).find((line) => pattern.test(line)) ?? '';
  };
  const buy = async (quantity: number) => {
    const created = await stack.call(testKey, 'POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU', quantity });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as unknown as Order;
  };

  beforeAll(async () => {
    stack = await startLocalStack({ STREAM_RETRY_MS: '200' });
    const account = await createAccount(stack.db.knex);
    testKey = account.test.secret;
    receiver = await startReceiver();
    proxy = await startCuttableProxy(new URL(stack.composition.gatewayUrl));
  }, 180_000);

  afterAll(async () => {
    cli?.kill('SIGKILL');
    await proxy?.close();
    await receiver?.close();
    await stack?.close();
  });

  test('forwards every event, signed with the printed secret, across a dropped connection', async () => {
    cli = spawn(process.execPath, [cliMain, 'listen', '--forward-to', receiver.url, '--events', 'esim.*', '--key', testKey, '--url', proxy.url], {
      env: { ...process.env, CONNECTIVITY_WEBHOOK_SECRET: '', CONNECTIVITY_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let pending = '';
    const collect = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
    };
    cli.stdout?.on('data', collect);
    cli.stderr?.on('data', collect);

    const secretLine = await waitForLine(/Webhook signing secret: whsec_/);
    receiver.useSecret(/(whsec_\S+)/.exec(secretLine)?.[1] ?? '');
    await waitForLine(/connected/);

    const before = await buy(2);
    await expect.poll(() => receiver.delivered.size, { timeout: 20_000 }).toBe(2);

    // The network drops: the stream is cut and reconnects are refused for a while, as orders go on.
    const mark = lines.length;
    proxy.cut();
    const during = [await buy(2), await buy(1)];
    await waitForLine(/disconnected|stream ended/, mark);
    proxy.heal();
    await waitForLine(/connected, resuming after evt_/, mark);
    const after = await buy(1);

    const orders = [before, ...during, after];
    const esimIds = new Set(orders.flatMap((order) => order.esims.map((esim) => esim.id)));
    await expect.poll(() => receiver.delivered.size, { timeout: 30_000 }).toBe(esimIds.size);
    expect(receiver.rejected).toEqual([]);
    const listed = (await stack.call(testKey, 'GET', '/v1/events?limit=100')).body.data as ApiEvent[];
    const released = listed.filter((event) => event.type === 'esim.released');
    expect(released).toHaveLength(esimIds.size);
    for (const event of released) {
      expect(receiver.delivered.get(event.id)).toEqual(event);
    }
    // One line per event: time, type, id and what the receiver answered.
    for (const event of released) {
      expect(lines.some((line) => new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+esim\\.released\\s+${event.id}\\s+-> 204$`).test(line))).toBe(true);
    }

    const exited = new Promise<number | null>((resolve) => cli?.once('exit', (code) => resolve(code)));
    cli.kill('SIGTERM');
    expect(await exited).toBe(0);
    cli = undefined;
  }, 120_000);

  test('with the dev key of a local pnpm start, follows the new dev key a restart made', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cli-listen-dev-'));
    const account = await createAccount(stack.db.knex);
    const writeDevKey = (key: string) =>
      writeFile(path.join(dataDir, 'dev-keys.json'), JSON.stringify({ accountId: account.account.id, testKey: key }), { mode: 0o600 });
    await writeDevKey(account.test.secret);
    const own: string[] = [];
    const child = spawn(process.execPath, [cliMain, 'listen', '--forward-to', receiver.url, '--url', stack.composition.gatewayUrl], {
      env: { ...process.env, DATA_DIR: dataDir, CONNECTIVITY_WEBHOOK_SECRET: '', CONNECTIVITY_API_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (chunk: Buffer) =>
      own.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    try {
      await expect.poll(() => own.find((line) => line.includes('Webhook signing secret')), { timeout: 20_000 }).toBeDefined();
      receiver.useSecret(/(whsec_\S+)/.exec(own.find((line) => line.includes('Webhook signing secret')) ?? '')?.[1] ?? '');
      await expect.poll(() => own.some((line) => /connected/.test(line)), { timeout: 20_000 }).toBe(true);

      // pnpm start came back with a new dev key: the old one is revoked (its stream closes), the file names the new one.
      const rotated = await rotateKey(stack.db.knex, account.account.id, 'test');
      await writeDevKey(rotated.secret);
      // What the gateway's admin API does after a rotation: every gateway hears the key changed.
      await stack.bus.notify(KEY_CHANGES_SUBJECT, { keyIds: [account.test.key.id] });
      await expect.poll(() => own.some((line) => line.includes('new dev key')), { timeout: 20_000, message: own.join('\n') }).toBe(true);
      // Connected again, now with the new key (a stream starts after what was stored before it opened).
      await expect
        .poll(() => own.slice(own.findIndex((line) => line.includes('new dev key'))).some((line) => /connected/.test(line)), { timeout: 20_000 })
        .toBe(true);

      const order = await stack.call(rotated.secret, 'POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU', quantity: 1 });
      expect(order.status).toBe(201);
      const esimId = (order.body as unknown as Order).esims[0]?.id;
      await expect
        .poll(() => [...receiver.delivered.values()].some((event) => (event.data.object as { id?: string }).id === esimId), {
          timeout: 20_000,
          message: own.join('\n'),
        })
        .toBe(true);
      expect(child.exitCode, own.join('\n')).toBeNull();
    } finally {
      child.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
