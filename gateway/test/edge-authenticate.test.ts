import { randomBytes, randomInt } from 'node:crypto';
import { SCOPES } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKeyById } from '../src/index.ts';
import { authenticate } from '../src/edge/authenticate.ts';
import { runStep } from './support/edge-step.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

/** Step 1 alone: the key cache on a real database, the address budgets on the real limiter. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

// An address of each test's own, so the address budgets of one test never meet another's.
const address = () => `198.51.100.${randomInt(1, 255)}`;

function authenticateFrom(from: string, authorization: string | undefined, perMinute = 120) {
  return runStep(
    (req, res) => authenticate({ edge: h.edge, rateLimitPerMinute: perMinute }, req, res),
    (client) => {
      const call = client.get('/v1/esim').set('X-Forwarded-For', from);
      return authorization === undefined ? call : call.set('Authorization', authorization);
    },
  );
}

/** The queries of the key table `run` makes (background work never reads it). */
async function keyLookups(run: () => Promise<unknown>): Promise<number> {
  let lookups = 0;
  const count = (query: { sql: string }) => {
    if (query.sql.includes('api_keys')) lookups += 1;
  };
  h.db.knex.on('query', count);
  try {
    await run();
  } finally {
    h.db.knex.off('query', count);
  }
  return lookups;
}

describe('the authentication step', () => {
  it('no key is key_missing, and the request is counted against its address', async () => {
    const { value, error, response } = await authenticateFrom(address(), undefined);
    expect(value).toBeUndefined();
    expect(error?.code).toBe('key_missing');
    expect(response.headers['ratelimit-limit']).toBe('120');
    expect(response.headers['ratelimit-remaining']).toBe('119');
    expect((await authenticateFrom(address(), 'Basic abc')).error?.code).toBe('key_missing');
  });

  it('a token that cannot be a key is key_invalid without a lookup; a well-formed one of no key after one', async () => {
    expect(await keyLookups(async () => expect((await authenticateFrom(address(), 'Bearer not-a-key')).error?.code).toBe('key_invalid'))).toBe(0);
    const unknown = `sk_test_${randomBytes(16).toString('hex')}`;
    expect(await keyLookups(async () => expect((await authenticateFrom(address(), `Bearer ${unknown}`)).error?.code).toBe('key_invalid'))).toBe(1);
  });

  it('a revoked key is key_revoked', async () => {
    const a = await h.account();
    await revokeKeyById(h.db.knex, a.testKeyId);
    expect((await authenticateFrom(address(), bearer(a.test).Authorization)).error?.code).toBe('key_revoked');
  });

  it('a valid key gives its identity, built once: later requests get the same one, with no lookup', async () => {
    const a = await h.account();
    const first = await authenticateFrom(address(), bearer(a.live).Authorization);
    expect(first.error).toBeUndefined();
    expect(first.value).toMatchObject({
      keyId: a.liveKeyId,
      accountId: a.accountId,
      environment: 'live',
      scopes: [...SCOPES],
      rateLimitPerMinute: null,
      rateLimitBucket: `key:${a.liveKeyId}`,
      caller: { accountId: a.accountId, environment: 'live', keyId: a.liveKeyId },
      pinnedVersion: null,
      firstUsedAt: null,
    });
    // A valid key is not counted against the address: its own budget is the rate-limit step's.
    expect(first.response.headers['ratelimit-limit']).toBeUndefined();
    expect(Object.isFrozen(first.value?.caller)).toBe(true);
    let again: Awaited<ReturnType<typeof authenticateFrom>> | undefined;
    expect(await keyLookups(async () => (again = await authenticateFrom(address(), bearer(a.live).Authorization)))).toBe(0);
    expect(again?.value).toBe(first.value);
  });

  it('an address whose budget is spent is refused before a key not in memory is looked up; a key in memory still passes', async () => {
    const from = address();
    const known = await h.account();
    expect((await authenticateFrom(address(), bearer(known.test).Authorization)).value?.keyId).toBe(known.testKeyId);
    expect((await authenticateFrom(from, 'Bearer guess-1', 2)).error?.code).toBe('key_invalid');
    expect((await authenticateFrom(from, 'Bearer guess-2', 2)).error?.code).toBe('key_invalid');
    const spent = await authenticateFrom(from, 'Bearer guess-3', 2);
    expect(spent.error?.code).toBe('rate_limited');
    expect(Number(spent.response.headers['retry-after'])).toBeGreaterThan(0);

    const fresh = await h.account();
    let refused: Awaited<ReturnType<typeof authenticateFrom>> | undefined;
    expect(await keyLookups(async () => (refused = await authenticateFrom(from, bearer(fresh.test).Authorization, 2)))).toBe(0);
    expect(refused?.error?.code).toBe('rate_limited');
    expect((await authenticateFrom(from, bearer(known.test).Authorization, 2)).value?.keyId).toBe(known.testKeyId);
  });
});
