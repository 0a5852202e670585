import request from 'supertest';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { expectError } from './support/common-route-tests.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

describe('an error link whose code does not decode', () => {
  it('is answered with the error object, never a 500', async () => {
    const a = await h.account();
    expectError(await request(h.app).get('/v1/errors/%zz').set(bearer(a.test)), 404, 'no_such_route');
    expectError(await request(h.app).get('/v1/errors/%zz'), 401, 'key_missing');
    expectError(await request(h.app).get('/v1/errors/%zz').set('Accept', 'text/html'), 401, 'key_missing');
  });
});
