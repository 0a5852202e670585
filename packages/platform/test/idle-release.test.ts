import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { onIdleRelease, releaseMemoryWhenIdle, type IdleMemoryRelease } from '../src/memory/idle-release.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const IDLE_MS = 100;

let server: Server | undefined;
let release: IdleMemoryRelease | undefined;
afterEach(async () => {
  release?.stop();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

async function served(): Promise<string> {
  server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

describe('the release of memory once idle (record 0269)', () => {
  it('collects once after a quiet spell that follows requests, never while they come, and not again until new ones', async () => {
    const url = await served();
    let collected = 0;
    let hooked = 0;
    const removeHook = onIdleRelease(() => (hooked += 1));
    release = releaseMemoryWhenIdle({ idleMs: IDLE_MS, collect: () => (collected += 1) });
    release.watch(server!);
    try {
      // No request yet: nothing to give back.
      await sleep(IDLE_MS * 3);
      expect(collected).toBe(0);
      // Requests every 20 ms for 6 idle spans: busy throughout.
      const busyUntil = Date.now() + IDLE_MS * 6;
      while (Date.now() < busyUntil) {
        await (await fetch(url)).text();
        await sleep(20);
      }
      expect(collected).toBe(0);
      await sleep(IDLE_MS * 3);
      expect(collected).toBe(1);
      expect(hooked).toBe(1);
      // Quiet on: once per spell.
      await sleep(IDLE_MS * 3);
      expect(collected).toBe(1);
      await (await fetch(url)).text();
      await sleep(IDLE_MS * 3);
      expect(collected).toBe(2);
      expect(release.releases).toBe(2);
    } finally {
      removeHook();
    }
  });

  it('gives back the memory a burst left behind, measured in a process run with --expose-gc', () => {
    // A child with the flags `pnpm start` uses: a heap grown by a burst of garbage, then idle.
    const script = `
      import { createServer } from 'node:http';
      import { releaseMemoryWhenIdle } from ${JSON.stringify(new URL('../src/memory/idle-release.ts', import.meta.url).href)};
      const server = createServer((_req, res) => res.end());
      const release = releaseMemoryWhenIdle({ idleMs: 200 });
      release.watch(server);
      server.emit('request', {}, { end() {} });
      let keep = [];
      for (let i = 0; i < 400; i++) { keep.push(new Array(20000).fill(i)); if (keep.length > 20) keep = []; }
      keep = [];
      const before = process.memoryUsage().heapTotal;
      setTimeout(() => {
        process.stdout.write(JSON.stringify({ before, after: process.memoryUsage().heapTotal, releases: release.releases }));
        release.stop();
      }, 700);
    `;
    const out = execFileSync(process.execPath, ['--expose-gc', '--max-semi-space-size=2', '--input-type=module', '-e', script], { encoding: 'utf8' });
    const { before, after, releases } = JSON.parse(out) as { before: number; after: number; releases: number };
    expect(releases).toBe(1);
    expect(after).toBeLessThan(before * 0.8);
  });
});
