import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from '../bench/support/load.ts';

// The bench's load generator, against a plain server: what it reports is what happened.
let server: Server;
let url: string;
let answered = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    answered += 1;
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the bench load generator', () => {
  it('times a run of a set number of requests to its last answer, not to autocannon’s next whole second', async () => {
    answered = 0;
    const result = await load({ url, path: '/', connections: 10, durationSeconds: 10, amount: 200 });
    expect(result.ok).toBe(200);
    expect(answered).toBe(200);
    expect(result.failures).toBe(0);
    // autocannon reports such a run when its 1 s sample ticks, so its own duration is at least 1 s
    // for 200 answers a local server gives in a few milliseconds: a rate of 200/s or less.
    expect(result.seconds).toBeLessThan(1);
    expect(result.rps).toBeCloseTo(200 / result.seconds, 6);
  });
});
