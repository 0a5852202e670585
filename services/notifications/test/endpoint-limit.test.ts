import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, caller, newAccount } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create({ WEBHOOK_MAX_ENDPOINTS: '3' });
  await h.start();
  h.dns.set('hooks.example.com', ['93.184.216.34']);
});
afterAll(async () => {
  await h?.close();
});

const create = (who: ReturnType<typeof caller>, path: string) =>
  h.post(who, '/v1/webhooks', { url: `https://hooks.example.com/${path}`, enabled_events: ['*'] });

describe('the cap on webhook endpoints per account and environment', () => {
  it('refuses one endpoint past the cap with quota_exceeded, naming the limit and no parameter', async () => {
    const account = newAccount();
    const me = caller(account, 'test');
    for (const path of ['a', 'b', 'c']) expect((await create(me, path)).status).toBe(201);

    const refused = await create(me, 'd');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({
      type: 'permission',
      code: 'quota_exceeded',
      message: expect.stringContaining('at most 3 webhook endpoints in the test environment (the limit WEBHOOK_MAX_ENDPOINTS is 3)'),
      link: 'https://api.example.test/v1/errors/quota_exceeded',
    });
    expect((await h.get(me, '/v1/webhooks')).body.data).toHaveLength(3);

    // The cap is per account and environment.
    expect((await create(caller(account, 'live'), 'd')).status).toBe(201);
    expect((await create(caller(newAccount(), 'test'), 'd')).status).toBe(201);
  });

  it('counts disabled endpoints, and frees a place when one is deleted', async () => {
    const me = caller(newAccount(), 'test');
    const ids: string[] = [];
    for (const path of ['a', 'b', 'c']) ids.push((await create(me, path)).body.id as string);
    expect((await h.patch(me, `/v1/webhooks/${ids[0]}`, { disabled: true })).status).toBe(200);
    expect((await create(me, 'd')).status).toBe(403);

    expect((await h.delete(me, `/v1/webhooks/${ids[1]}`)).status).toBe(200);
    expect((await create(me, 'd')).status).toBe(201);
    expect((await create(me, 'e')).status).toBe(403);
  });

  it('never lets concurrent creates pass the cap together', async () => {
    const me = caller(newAccount(), 'test');
    const results = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((path) => create(me, path)));
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 403, 403, 403]);
    expect((await h.get(me, '/v1/webhooks')).body.data).toHaveLength(3);
  });
});
