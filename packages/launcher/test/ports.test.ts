import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { freePort, freePortBlock } from '../src/distributed-stack.ts';
import { ephemeralPortRange, LOWEST_PORT } from '../src/ports.ts';
import { PORT_OFFSET } from '../src/services.ts';

const listenable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });

/**
 * The ports tests give services are listened on seconds later (after migrations, after other
 * services started and made their connections). A port in the ephemeral range can be taken
 * meanwhile as the source port of any outgoing connection, and the service then fails to start
 * with EADDRINUSE: the distributed launcher exited 1 that way (its PORT + 1..4 were never
 * checked at all).
 */
describe('ports for services started later', () => {
  const { low, high } = ephemeralPortRange();
  const ephemeral = (port: number) => port >= low && port <= high;

  test('a free port is outside the range outgoing connections take their source port from', async () => {
    for (let i = 0; i < 20; i += 1) {
      const port = await freePort();
      expect(ephemeral(port), `port ${port} in ${low}-${high}`).toBe(false);
      expect(await listenable(port)).toBe(true);
    }
  });

  test('a block for the launcher: PORT and every offset from it free, none ephemeral, none given twice', async () => {
    const count = Math.max(...Object.values(PORT_OFFSET)) + 1;
    const given = new Set<number>();
    for (let i = 0; i < 10; i += 1) {
      const base = await freePortBlock(count);
      for (let port = base; port < base + count; port += 1) {
        expect(ephemeral(port), `port ${port} in ${low}-${high}`).toBe(false);
        expect(await listenable(port), `port ${port}`).toBe(true);
        expect(given.has(port), `port ${port} given twice`).toBe(false);
        given.add(port);
      }
    }
  });

  test('fetch connects to every port from the lowest handed out on (none of its "bad ports", e.g. 10080)', async () => {
    const refused: number[] = [];
    const ports = Array.from({ length: 1_000 }, (_, i) => LOWEST_PORT + i);
    for (let i = 0; i < ports.length; i += 100) {
      await Promise.all(
        ports.slice(i, i + 100).map(async (port) => {
          const error = await fetch(`http://127.0.0.1:${port}/`).then(
            () => undefined,
            (failure: unknown) => failure,
          );
          const cause = error instanceof Error ? (error.cause as Error | undefined) : undefined;
          if (cause?.message === 'bad port') refused.push(port);
        }),
      );
    }
    expect(refused).toEqual([]);
  });
});
