import request from 'supertest';
import { expect, test } from 'vitest';
import { beginDrain, createLogger, createServiceApp, isDraining } from '../src/index.ts';

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
