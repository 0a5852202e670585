import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setRateLimit } from '../src/db/accounts-repository.ts';
import { countKeyRequest, refuseIfKeyLimited } from '../src/edge/rate-limit.ts';
import type { Identity } from '../src/domain/identity.ts';
import { identityOf, runStep } from './support/edge-step.ts';
import { startHarness, type Harness } from './support/harness.ts';

/**
 * Step 3 alone, on the real limiter (this process's, or Redis when the machine has it): the
 * request is counted per key, with the headers, and refused once the key's budget is spent.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function countAndRefuse(identity: Identity, perMinute: number) {
  return runStep(
    async (req, res) => {
      const decision = await countKeyRequest({ edge: h.edge, rateLimitPerMinute: perMinute }, res, identity);
      refuseIfKeyLimited(res, decision);
      return decision;
    },
    (client) => client.get('/v1/esim'),
  );
}

describe('the rate-limit step', () => {
  it('counts per key with the rate-limit headers, and refuses once the budget is spent, saying when to retry', async () => {
    const identity = await identityOf(h, (await h.account()).test);
    for (const remaining of [2, 1, 0]) {
      const { value, error, response } = await countAndRefuse(identity, 3);
      expect(error).toBeUndefined();
      expect(value?.allowed).toBe(true);
      expect(response.headers['ratelimit-limit']).toBe('3');
      expect(response.headers['ratelimit-remaining']).toBe(String(remaining));
      expect(response.headers['ratelimit-policy']).toMatch(/^"default";q=3;w=\d+$/);
      expect(response.headers['retry-after']).toBeUndefined();
    }
    const refused = await countAndRefuse(identity, 3);
    expect(refused.error?.code).toBe('rate_limited');
    expect(refused.response.headers['ratelimit-remaining']).toBe('0');
    expect(Number(refused.response.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('each key has its own budget: another key of the same account is not refused', async () => {
    const a = await h.account();
    const test = await identityOf(h, a.test);
    const live = await identityOf(h, a.live);
    await countAndRefuse(test, 1);
    expect((await countAndRefuse(test, 1)).error?.code).toBe('rate_limited');
    expect((await countAndRefuse(live, 1)).error).toBeUndefined();
  });

  it('an account budget the operator set replaces the default', async () => {
    const a = await h.account();
    await setRateLimit(h.db.knex, a.accountId, 1);
    const identity = await identityOf(h, a.test);
    expect(identity.rateLimitPerMinute).toBe(1);
    const first = await countAndRefuse(identity, 1000);
    expect(first.response.headers['ratelimit-limit']).toBe('1');
    expect((await countAndRefuse(identity, 1000)).error?.code).toBe('rate_limited');
  });
});
