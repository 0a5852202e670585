import { routeTable, SCOPES, type RouteEntry } from '@connectivity/contracts';
import request from 'supertest';
import { expect, it } from 'vitest';
import { bearer, idem, type Harness } from './harness.ts';

/** A concrete path for a route pattern (`/v1/esim/:id` -> `/v1/esim/esim_x`). */
export const samplePath = (entry: RouteEntry) =>
  entry.route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => (name === 'code' ? 'key_missing' : `sample_${name}`));

export const authenticatedRoutes = () => routeTable.filter((entry) => entry.metadata.auth);

export function callRoute(h: Harness, entry: RouteEntry) {
  const path = samplePath(entry);
  const method = entry.route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
  return request(h.app)[method](path);
}

export function expectStandardHeaders(res: request.Response) {
  expect(res.headers['request-id']).toMatch(/^req_[0-9a-z]{26}$/);
  expect(res.headers['service-version']).toBe('2026-09-01');
  expect(res.headers['ratelimit-policy']).toMatch(/^"default";q=\d+;w=60$/);
  expect(res.headers.ratelimit).toMatch(/^"default";r=\d+;t=\d+$/);
  expect(res.headers['ratelimit-limit']).toMatch(/^\d+$/);
  expect(res.headers['ratelimit-remaining']).toMatch(/^\d+$/);
  expect(res.headers['ratelimit-reset']).toMatch(/^\d+$/);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
}

export function expectError(res: request.Response, status: number, code: string, param?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.link).toBe(`https://api.example.test/v1/errors/${code}`);
  expect(typeof res.body.error.message).toBe('string');
  if (param === undefined) expect(res.body.error.param).toBeUndefined();
  else expect(res.body.error.param).toBe(param);
  expectStandardHeaders(res);
}

/**
 * The checks every authenticated route shares (authentication, version, scope), run for each
 * route of the contract so a route added later is covered without writing a test for it.
 */
export function runCommonRouteTests(harness: () => Harness, entry: RouteEntry) {
  const name = `${entry.route.method} ${entry.route.path}`;

  it(`${name}: no key is 401 key_missing`, async () => {
    expectError(await callRoute(harness(), entry), 401, 'key_missing');
  });

  it(`${name}: an unknown key is 401 key_invalid`, async () => {
    expectError(await callRoute(harness(), entry).set(bearer('sk_test_NotARealKeyNotARealKey0000')), 401, 'key_invalid');
  });

  it(`${name}: an unsupported Service-Version is 400 unsupported_version`, async () => {
    const a = await harness().account();
    const res = await callRoute(harness(), entry).set(bearer(a.test)).set('Service-Version', '2020-01-01');
    expectError(res, 400, 'unsupported_version', 'Service-Version');
  });

  if (entry.metadata.scopes.length > 0) {
    it(`${name}: a key without ${entry.metadata.scopes.join(', ')} is 403 key_out_of_scope`, async () => {
      const h = harness();
      const a = await h.account();
      const others = SCOPES.filter((scope) => !entry.metadata.scopes.includes(scope));
      await h.db.knex('gateway.api_keys').where({ id: a.testKeyId }).update({ scopes: others });
      const res = await callRoute(h, entry).set(bearer(a.test)).set('Idempotency-Key', idem()).send({});
      expectError(res, 403, 'key_out_of_scope');
    });
  }
}
