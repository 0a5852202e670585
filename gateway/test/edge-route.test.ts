import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restrictKey } from '../src/index.ts';
import { routeOf } from '../src/edge/route.ts';
import type { Identity } from '../src/domain/identity.ts';
import { identityOf, runStep } from './support/edge-step.ts';
import { startHarness, type Harness } from './support/harness.ts';

/** Steps 4 and 5 alone: the contract route, then the key's scopes, then its environment. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function route(identity: Identity, method: 'get' | 'post' | 'delete', path: string) {
  return runStep(
    (req, res) => routeOf(req, res, identity),
    (client) => client[method](path),
  );
}

describe('the route step', () => {
  it('gives the contract route and its parameters', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const { value, error } = await route(identity, 'get', '/v1/esim/esim_123?expand=x');
    expect(error).toBeUndefined();
    expect(value?.entry.key).toBe('getEsim');
    expect(value?.params).toEqual({ id: 'esim_123' });
  });

  it('a path no route has, or a known path with another method, is 404 no_such_route', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const unknown = await route(identity, 'get', '/v1/nothing-here');
    expect(unknown.error?.code).toBe('no_such_route');
    expect(unknown.error?.message).toBe('No route GET /v1/nothing-here.');
    expect((await route(identity, 'delete', '/v1/esim')).error?.code).toBe('no_such_route');
  });

  it('a key without the route’s scope is 403 key_out_of_scope, naming the scope', async () => {
    const a = await h.account();
    await restrictKey(h.db.knex, a.testKeyId, ['esim:read']);
    const identity = await identityOf(h, a.test);
    expect((await route(identity, 'get', '/v1/esim')).error).toBeUndefined();
    const refused = await route(identity, 'post', '/v1/esim');
    expect(refused.error?.code).toBe('key_out_of_scope');
    expect(refused.error?.message).toContain('esim:write');
  });

  it('a live key on a test-only route is 403 live_key_test_resource, after the scope is checked', async () => {
    const a = await h.account();
    expect((await route(await identityOf(h, a.test), 'post', '/v1/test/error')).value?.entry.key).toBe('triggerTestError');
    expect((await route(await identityOf(h, a.live), 'post', '/v1/test/error')).error?.code).toBe('live_key_test_resource');
    const b = await h.account();
    await restrictKey(h.db.knex, b.liveKeyId, ['esim:read']);
    expect((await route(await identityOf(h, b.live), 'post', '/v1/test/error')).error?.code).toBe('key_out_of_scope');
  });
});
