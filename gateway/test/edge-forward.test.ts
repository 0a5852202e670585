import { INTERNAL_HEADERS, isRouteMatch, matchRoute, type RouteMatch } from '@connectivity/contracts';
import { createLogger, getCaller } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createForwarder } from '../src/clients/forwarder.ts';
import { ResponseCache } from '../src/domain/response-cache.ts';
import { forward } from '../src/edge/forward.ts';
import { handOff, servedVersion } from '../src/edge/hand-off.ts';
import type { Identity } from '../src/domain/identity.ts';
import { LATEST_VERSION } from '../src/domain/versions.ts';
import { identityOf, runStep } from './support/edge-step.ts';
import { BASE_URL, freePort, idem, startHarness, type Harness } from './support/harness.ts';

/**
 * Step 10 alone: a route another service owns is forwarded to it over real HTTP (the harness's
 * stand-in service) and its answer passed on; a route the gateway owns is handed to its router.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const VERSION = LATEST_VERSION;

function forwarderTo(url: string) {
  return createForwarder({
    serviceUrls: { catalogue: url, inventory: url, 'sandbox-simulator': url, notifications: url },
    internalToken: h.config.INTERNAL_TOKEN ?? '',
    timeoutMs: 1_500,
    baseUrl: BASE_URL,
    logger: createLogger({ name: 'edge-forward-test', level: 'silent' }),
  });
}

function matchOf(method: string, path: string): RouteMatch {
  const match = matchRoute(method, path);
  if (!isRouteMatch(match)) throw new Error(`no route ${method} ${path}`);
  return match;
}

function forwardGet(identity: Identity, path: string, deps = { forwarder: forwarderTo(h.upstream.url), responses: new ResponseCache() }) {
  return runStep(
    (req, res) => forward(deps, req, res, identity, VERSION, matchOf('GET', path), Buffer.alloc(0), undefined),
    (client) => client.get(path),
  );
}

describe('the forward step', () => {
  it('sends the request to its service with the caller and the version, and passes its answer on', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const { error, response } = await forwardGet(identity, '/v1/esim/esim_forwarded');
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ object: 'esim', id: 'esim_forwarded' });
    const seen = h.upstream.seen.find((request) => request.url === '/v1/esim/esim_forwarded');
    expect(seen?.headers[INTERNAL_HEADERS.accountId]).toBe(identity.accountId);
    expect(seen?.headers[INTERNAL_HEADERS.environment]).toBe('test');
    expect(seen?.headers[INTERNAL_HEADERS.keyId]).toBe(identity.keyId);
    expect(seen?.headers['service-version']).toBe(VERSION);
  });

  it('a mutating request goes with its body bytes and its Idempotency-Key, and the service’s status comes back', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const key = idem();
    const body = '{ "bundle": "esim_fwd_1GB" }';
    const deps = { forwarder: forwarderTo(h.upstream.url), responses: new ResponseCache() };
    const { error, response } = await runStep(
      (req, res) => forward(deps, req, res, identity, VERSION, matchOf('POST', '/v1/esim'), Buffer.from(body), key),
      (client) => client.post('/v1/esim').send(body),
    );
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ object: 'order', bundle: 'esim_fwd_1GB' });
    const seen = h.upstream.seen.find((request) => request.headers['idempotency-key'] === key);
    expect(seen?.body).toBe(body);
  });

  it('a read its service marked cacheable is answered from the edge the second time, with Age', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const deps = { forwarder: forwarderTo(h.upstream.url), responses: new ResponseCache() };
    const first = await forwardGet(identity, '/v1/esim/bundles?country=FR', deps);
    const seenAfterFirst = h.upstream.seen.length;
    const second = await forwardGet(identity, '/v1/esim/bundles?country=FR', deps);
    expect(second.response.body).toEqual(first.response.body);
    expect(second.response.headers.age).toBeDefined();
    expect(h.upstream.seen.length).toBe(seenAfterFirst);
  });

  it('a service that cannot be reached is 500 internal_error, never a bare failure', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const deps = { forwarder: forwarderTo(`http://127.0.0.1:${await freePort()}`), responses: new ResponseCache() };
    const { error } = await forwardGet(identity, '/v1/esim/esim_unreachable', deps);
    expect(error?.code).toBe('internal_error');
    expect(error?.status).toBe(500);
  });
});

describe('the hand-off to the gateway’s own router', () => {
  it('leaves the identity’s caller and the chosen version for the router', async () => {
    const identity = await identityOf(h, (await h.account()).live);
    const { value } = await runStep(
      (_req, res) => {
        handOff(res, identity, VERSION);
        return { caller: getCaller(res), version: servedVersion(res) };
      },
      (client) => client.get('/v1/api_keys'),
    );
    expect(value?.caller).toBe(identity.caller);
    expect(value?.caller).toEqual({ accountId: identity.accountId, environment: 'live', keyId: identity.keyId });
    expect(value?.version).toBe(VERSION);
  });
});
