import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.ts';
import { capture, startCliWorld, type CliWorld } from './support.ts';

/** A real HTTP server standing in for catalogue, which owns the switch: it records what it is told. */
let catalogue: Server;
const received: { url: string; body: string }[] = [];
let world: CliWorld;
let dataDir: string;

beforeAll(async () => {
  catalogue = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body });
      const enabled = (JSON.parse(body) as { enabled: boolean }).enabled;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'live_ordering', enabled, updated_at: 1 }));
    });
  });
  await new Promise<void>((resolve) => catalogue.listen(0, '127.0.0.1', resolve));
  const address = catalogue.address();
  world = await startCliWorld({ env: { CATALOGUE_URL: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}` } });
  dataDir = world.dataDir;
});

afterAll(async () => {
  await world?.close();
  await new Promise<void>((resolve) => (catalogue ? catalogue.close(() => resolve()) : resolve()));
});

describe('pnpm cli account live-ordering', () => {
  it('switches an account’s live ordering off and on again', async () => {
    const created = capture();
    await run(['account', 'create', '--json'], { env: { DATA_DIR: dataDir }, out: created });
    const { id } = JSON.parse(created.lines.join('\n')) as { id: string };

    const off = capture();
    expect(await run(['account', 'live-ordering', id, 'off'], { env: { DATA_DIR: dataDir }, out: off })).toBe(0);
    expect(off.lines.join('\n')).toBe(`Live ordering of ${id}: off.`);
    const on = capture();
    expect(await run(['account', 'live-ordering', id, 'on', '--json'], { env: { DATA_DIR: dataDir }, out: on })).toBe(0);
    expect(JSON.parse(on.lines.join('\n'))).toMatchObject({ id, live_ordering: true });

    expect(received.map((r) => [r.url, JSON.parse(r.body) as unknown])).toEqual([
      [`/internal/accounts/${id}/live-ordering`, { enabled: false }],
      [`/internal/accounts/${id}/live-ordering`, { enabled: true }],
    ]);
  });

  it('refuses anything but on or off', async () => {
    const err = capture();
    expect(await run(['account', 'live-ordering', 'acct_x', 'maybe'], { env: { DATA_DIR: dataDir }, err })).toBe(1);
    expect(err.lines.join('\n')).toMatch(/"on" or "off"/);
    expect(received.some((r) => r.url.includes('acct_x'))).toBe(false);
  });
});
