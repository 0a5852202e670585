import { matchRoute, isRouteMatch, type RouteEntry } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkIdempotencyKey, idempotencyKeyOf } from '../src/edge/idempotency.ts';
import type { Identity } from '../src/domain/identity.ts';
import { identityOf, runStep } from './support/edge-step.ts';
import { idem, startHarness, type Harness } from './support/harness.ts';

/**
 * Steps 7 and 9 alone: the Idempotency-Key a mutating route needs, and the edge's part of
 * idempotency, the key's first request noted in the real database (replays are the owning
 * service's, so the edge decides only a conflict).
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function entryOf(method: string, path: string): RouteEntry {
  const match = matchRoute(method, path);
  if (!isRouteMatch(match)) throw new Error(`no route ${method} ${path}`);
  return match.entry;
}

const keyOf = (entry: RouteEntry, header?: string) =>
  runStep(
    (req) => idempotencyKeyOf(req, entry),
    (client) => (header === undefined ? client.post('/') : client.post('/').set('Idempotency-Key', header)),
  );

function check(identity: Identity, key: string, path: string, body: string) {
  return runStep(
    (req) => checkIdempotencyKey({ edge: h.edge, idempotency: { retentionMs: 60_000 } }, req, identity, key, Buffer.from(body)),
    (client) => client.post(path).send(body),
  );
}

describe('the Idempotency-Key step', () => {
  const createEsim = entryOf('POST', '/v1/esim');

  it('a mutating route without the header is 400 idempotency_key_required; with it, the key', async () => {
    expect((await keyOf(createEsim)).error?.code).toBe('idempotency_key_required');
    expect((await keyOf(createEsim, '')).error?.code).toBe('idempotency_key_required');
    expect((await keyOf(createEsim, 'key-0001-abc')).value).toBe('key-0001-abc');
  });

  it('a key of fewer than 8 or more than 128 characters is 400 invalid_parameter (param Idempotency-Key)', async () => {
    for (const header of ['short', 'k'.repeat(129)]) {
      const { error } = await keyOf(createEsim, header);
      expect(error?.code).toBe('invalid_parameter');
      expect(error?.param).toBe('Idempotency-Key');
    }
  });

  it('a route that changes nothing has no key, whatever the request sends', async () => {
    const listEsims = entryOf('GET', '/v1/esim');
    expect(await keyOf(listEsims)).toMatchObject({ value: undefined, error: undefined });
    expect(await keyOf(listEsims, 'short')).toMatchObject({ value: undefined, error: undefined });
  });
});

describe('the idempotency step', () => {
  it('the same request again with the same key goes on (its service replays it)', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const key = idem();
    expect((await check(identity, key, '/v1/esim', '{"bundle":"b"}')).error).toBeUndefined();
    expect((await check(identity, key, '/v1/esim', '{"bundle":"b"}')).error).toBeUndefined();
  });

  it('the same key on another body or path is 409 idempotency_key_reused', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    const key = idem();
    expect((await check(identity, key, '/v1/esim', '{"bundle":"b"}')).error).toBeUndefined();
    const otherBody = await check(identity, key, '/v1/esim', '{"bundle":"c"}');
    expect(otherBody.error?.code).toBe('idempotency_key_reused');
    expect(otherBody.error?.status).toBe(409);
    expect((await check(identity, key, '/v1/webhooks', '{"bundle":"b"}')).error?.code).toBe('idempotency_key_reused');
  });

  it('a key belongs to the account and environment: the other environment, or another account, may use it', async () => {
    const a = await h.account();
    const b = await h.account();
    const key = idem();
    expect((await check(await identityOf(h, a.test), key, '/v1/esim', '{"bundle":"b"}')).error).toBeUndefined();
    expect((await check(await identityOf(h, a.live), key, '/v1/webhooks', '{}')).error).toBeUndefined();
    expect((await check(await identityOf(h, b.test), key, '/v1/webhooks', '{}')).error).toBeUndefined();
  });
});
