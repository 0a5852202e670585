import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { expect, test } from 'vitest';
import { beginDrain, createLogger, createServiceApp, isDraining } from '../src/index.ts';
import { trackRequests } from '../src/service/drain.ts';

// Its own file: draining is process-wide and cannot be undone.
test('/readyz fails as soon as the stop begins, though every dependency is up', async () => {
  const app = createServiceApp({
    logger: createLogger({ name: 'drain', level: 'silent' }),
    baseUrl: 'https://api.example.test',
    internalToken: 'an-internal-token-of-some-length',
    checks: { database: () => Promise.resolve() },
    routes: () => {},
  });
  expect((await request(app).get('/readyz')).status).toBe(200);
  beginDrain();
  expect(isDraining()).toBe(true);
  const res = await request(app).get('/readyz');
  expect(res.status).toBe(503);
  expect(res.body).toMatchObject({ status: 'draining' });
  // Still alive, just not taking new traffic.
  expect((await request(app).get('/healthz')).status).toBe(200);
});

// The stop once crashed here: a listener setting `Connection: close` after the app had already
// answered synchronously (as /readyz does while draining) threw ERR_HTTP_HEADERS_SENT.
test('while draining, a server answers a synchronous route with Connection: close and keeps running', async () => {
  beginDrain();
  const server = createServer((_req, res) => res.writeHead(503).end('draining'));
  trackRequests(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    for (let i = 0; i < 3; i += 1) {
      const answer = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('connection')).toBe('close');
      await answer.text();
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
