import { randomBytes } from 'node:crypto';
import { admits } from '@connectivity/contracts';
import { initContract } from '@ts-rest/core';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import {
  ConfigError,
  createLogger,
  createServiceApp,
  credentialDigest,
  operatorRouteOptions,
  parseConfig,
  commonConfigSchema,
  parseInternalCallers,
  tsRestOptions,
  type InternalCallers,
} from '../src/index.ts';

/**
 * Each caller of a service has a credential of its own, and each route admits the callers its
 * contract names (records 0222, 0223): a public route the gateway's forward alone, an internal
 * router the callers of its `metadata.callers`.
 */
const c = initContract();
const publicContract = c.router({ list: { method: 'GET', path: '/v1/things', responses: { 200: z.object({ ok: z.boolean() }) } } });
const supplyContract = c.router(
  { buy: { method: 'POST', path: '/internal/supply/buy', body: z.object({}), responses: { 200: z.object({ ok: z.boolean() }) } } },
  { metadata: admits('inventory') },
);
const operatorContract = c.router(
  { setBalance: { method: 'PUT', path: '/internal/accounts/balance', body: z.object({}), responses: { 200: z.object({ ok: z.boolean() }) } } },
  { metadata: admits('gateway-admin') },
);

const token = () => randomBytes(32).toString('base64url');
const tokens = { gateway: token(), 'gateway-admin': token(), inventory: token(), 'sandbox-simulator': token() };
const callersText = Object.entries(tokens)
  .map(([name, value]) => `${name}=${credentialDigest(value)}`)
  .join(',');

function serviceApp(options: { callers?: InternalCallers; token?: string; production?: boolean }) {
  const s = initServer();
  const ok = async () => Promise.resolve({ status: 200 as const, body: { ok: true } });
  return createServiceApp({
    logger: createLogger({ name: 'test', level: 'silent' }),
    baseUrl: 'https://api.example.test',
    internalToken: options.token ?? '',
    internalCallers: options.callers,
    production: options.production,
    checks: {},
    routes: (app) => {
      createExpressEndpoints(publicContract, s.router(publicContract, { list: ok }), app, tsRestOptions);
      createExpressEndpoints(supplyContract, s.router(supplyContract, { buy: ok }), app, tsRestOptions);
      createExpressEndpoints(operatorContract, s.router(operatorContract, { setBalance: ok }), app, operatorRouteOptions);
    },
  });
}

const callers = parseInternalCallers(callersText) as InternalCallers;
const withToken = (value: string) => ({ 'x-internal-token': value });

describe('internal calls with a credential per caller', () => {
  const app = serviceApp({ callers });

  test.each([
    ['gateway', 'GET', '/v1/things', 200],
    ['inventory', 'GET', '/v1/things', 403],
    ['sandbox-simulator', 'GET', '/v1/things', 403],
    ['inventory', 'POST', '/internal/supply/buy', 200],
    ['gateway', 'POST', '/internal/supply/buy', 403],
    ['gateway-admin', 'POST', '/internal/supply/buy', 403],
    ['sandbox-simulator', 'POST', '/internal/supply/buy', 403],
    ['gateway-admin', 'PUT', '/internal/accounts/balance', 200],
    ['gateway', 'PUT', '/internal/accounts/balance', 403],
    ['inventory', 'PUT', '/internal/accounts/balance', 403],
  ] as const)("%s's token on %s %s: %i", async (caller, method, path, status) => {
    const call = method === 'GET' ? request(app).get(path) : method === 'POST' ? request(app).post(path) : request(app).put(path);
    const response = await call.set(withToken(tokens[caller])).send(method === 'GET' ? undefined : {});
    expect(response.status).toBe(status);
    if (status === 403) expect(response.body.error).toMatchObject({ code: 'key_out_of_scope', type: 'permission' });
  });

  test('a token no caller holds, or none, is refused before any route', async () => {
    for (const headers of [withToken(token()), {}]) {
      const response = await request(app).post('/internal/supply/buy').set(headers).send({});
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('key_invalid');
    }
  });

  test("a service told only of some callers refuses the others' valid tokens", async () => {
    const narrow = serviceApp({ callers: parseInternalCallers(`gateway=${credentialDigest(tokens.gateway)}`) as InternalCallers });
    expect((await request(narrow).get('/v1/things').set(withToken(tokens.gateway))).status).toBe(200);
    expect((await request(narrow).post('/internal/supply/buy').set(withToken(tokens.inventory)).send({})).status).toBe(401);
  });

  test('without INTERNAL_CALLERS (one process tree, one token), the token is every caller', async () => {
    const shared = token();
    const tree = serviceApp({ token: shared });
    expect((await request(tree).get('/v1/things').set(withToken(shared))).status).toBe(200);
    expect((await request(tree).post('/internal/supply/buy').set(withToken(shared)).send({})).status).toBe(200);
    expect((await request(tree).post('/internal/supply/buy').set(withToken(token())).send({})).status).toBe(401);
  });

  test('a production service refuses to start without INTERNAL_CALLERS', () => {
    expect(() => serviceApp({ token: token(), production: true })).toThrow(ConfigError);
    expect(() => serviceApp({ callers, production: true })).not.toThrow();
  });

  test('INTERNAL_CALLERS is parsed strictly: known callers, SHA-256 digests, each once', () => {
    const digest = credentialDigest(token());
    expect(parseConfig(commonConfigSchema, { INTERNAL_CALLERS: callersText }).INTERNAL_CALLERS?.size).toBe(4);
    for (const bad of [`catalogue=${digest}`, 'gateway=abc', `gateway=${digest},gateway=${digest}`, ' , ']) {
      expect(() => parseConfig(commonConfigSchema, { INTERNAL_CALLERS: bad }), bad).toThrow(/INTERNAL_CALLERS/);
    }
  });
});

describe('/metrics behind its own token', () => {
  const metricsToken = token();
  const app = createServiceApp({
    logger: createLogger({ name: 'test', level: 'silent' }),
    baseUrl: 'https://api.example.test',
    internalToken: token(),
    metricsToken,
    checks: {},
    routes: () => undefined,
  });

  test('answers the scraper that holds it, and no one else (no internal token opens it)', async () => {
    expect((await request(app).get('/metrics').set('authorization', `Bearer ${metricsToken}`)).status).toBe(200);
    const none = await request(app).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('key_missing');
    expect((await request(app).get('/metrics').set('authorization', `Bearer ${token()}`)).body.error.code).toBe('key_invalid');
    expect((await request(app).get('/metrics').set('x-internal-token', tokens.gateway)).status).toBe(401);
  });
});
