import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, caller, newAccount } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await Harness.create();
  await h.start();
  h.dns.set('hooks.example.com', ['93.184.216.34']);
  h.dns.set('internal.example.com', ['93.184.216.34', '10.1.2.3']);
  h.dns.set('metadata.example.com', ['169.254.169.254']);
});
afterAll(async () => {
  await h?.close();
});

const expectError = (res: { status: number; body: unknown }, status: number, code: string, param?: string) => {
  expect(res.status).toBe(status);
  const error = (res.body as { error: Record<string, unknown> }).error;
  expect(error.code).toBe(code);
  expect(error.link).toBe(`https://api.example.test/v1/errors/${code}`);
  if (param === undefined) expect(error).not.toHaveProperty('param');
  else expect(error.param).toBe(param);
};

describe('webhook endpoints', () => {
  it('creates an endpoint with a whsec_ secret shown only once', async () => {
    const me = caller(newAccount(), 'test');
    const created = await h.post(me, '/v1/webhooks', {
      url: 'http://localhost:9/hook',
      enabled_events: ['esim.activated', 'esim.activated', 'esim.expired'],
      description: 'orders',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'webhook_endpoint',
      url: 'http://localhost:9/hook',
      enabled_events: ['esim.activated', 'esim.expired'],
      description: 'orders',
      disabled: false,
      disabled_reason: null,
      environment: 'test',
    });
    expect(created.body.id).toMatch(/^we_[0-9a-z]{26}$/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const read = await h.get(me, `/v1/webhooks/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('secret');
    expect(read.body).toMatchObject({ id: created.body.id, url: 'http://localhost:9/hook' });

    const list = await h.get(me, '/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(list.body.data).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
  });

  it('refuses the same URL twice in one account and environment with already_exists', async () => {
    const account = newAccount();
    const me = caller(account, 'test');
    await h.endpoint(me, 'http://localhost:9/dup');
    expectError(await h.post(me, '/v1/webhooks', { url: 'http://localhost:9/dup', enabled_events: ['*'] }), 409, 'already_exists', 'url');
    // The same URL is fine in another account and, for a public https URL, in the other environment.
    await h.endpoint(caller(newAccount(), 'test'), 'http://localhost:9/dup');
    await h.endpoint(me, 'https://hooks.example.com/x');
    await h.endpoint(caller(account, 'live'), 'https://hooks.example.com/x');
  });

  it('validates enabled_events against the event catalogue', async () => {
    const me = caller(newAccount(), 'test');
    const url = 'http://localhost:9/events';
    expectError(await h.post(me, '/v1/webhooks', { url, enabled_events: ['esim.exploded'] }), 400, 'invalid_parameter', 'enabled_events.0');
    expectError(await h.post(me, '/v1/webhooks', { url, enabled_events: [] }), 400, 'invalid_parameter', 'enabled_events');
    expectError(await h.post(me, '/v1/webhooks', { url, enabled_events: ['*', 'esim.expired'] }), 400, 'invalid_parameter', 'enabled_events');
    expectError(await h.post(me, '/v1/webhooks', { url }), 400, 'missing_parameter', 'enabled_events');
    expectError(await h.post(me, '/v1/webhooks', { enabled_events: ['*'] }), 400, 'missing_parameter', 'url');
    expectError(await h.post(me, '/v1/webhooks', { url: 'ftp://x.example.com/', enabled_events: ['*'] }), 400, 'invalid_parameter', 'url');
    expectError(await h.post(me, '/v1/webhooks', { url: 'http://u:p@localhost/', enabled_events: ['*'] }), 400, 'invalid_parameter', 'url');
    expectError(await h.post(me, '/v1/webhooks', { url, enabled_events: ['*'], colour: 'red' }), 400, 'invalid_parameter', 'colour');
  });

  it('refuses live endpoints without https or with a non-public address, also after DNS', async () => {
    const live = caller(newAccount(), 'live');
    const create = (url: string) => h.post(live, '/v1/webhooks', { url, enabled_events: ['*'] });
    for (const url of [
      'http://hooks.example.com/x',
      'https://localhost/x',
      'https://127.0.0.1/x',
      'https://10.0.0.8/x',
      'https://192.168.1.1/x',
      'https://172.20.0.1/x',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://metadata.google.internal/x',
      'https://internal.example.com/x',
      'https://metadata.example.com/x',
      'https://nowhere.example.com/x',
    ]) {
      expectError(await create(url), 400, 'invalid_parameter', 'url');
    }
    const ok = await create('https://hooks.example.com/x');
    expect(ok.status).toBe(201);
    expect(ok.body.environment).toBe('live');
  });

  it('lets test endpoints use http and localhost', async () => {
    const me = caller(newAccount(), 'test');
    for (const url of ['http://localhost:3000/x', 'http://127.0.0.1:3000/x', 'http://10.0.0.8/x']) {
      expect((await h.post(me, '/v1/webhooks', { url, enabled_events: ['*'] })).status).toBe(201);
    }
  });

  it('updates url, enabled_events and disabled', async () => {
    const me = caller(newAccount(), 'test');
    const { id } = await h.endpoint(me, 'http://localhost:9/a', ['esim.released']);
    const other = await h.endpoint(me, 'http://localhost:9/b');
    const res = await h.patch(me, `/v1/webhooks/${id}`, { url: 'http://localhost:9/c', enabled_events: ['*'], disabled: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ url: 'http://localhost:9/c', enabled_events: ['*'], disabled: true, disabled_reason: null });
    expect((await h.patch(me, `/v1/webhooks/${id}`, { disabled: false })).body.disabled).toBe(false);
    expectError(await h.patch(me, `/v1/webhooks/${id}`, { url: 'http://localhost:9/b' }), 409, 'already_exists', 'url');
    expectError(await h.patch(me, `/v1/webhooks/${id}`, { enabled_events: ['nope'] }), 400, 'invalid_parameter', 'enabled_events.0');
    expectError(await h.patch(me, `/v1/webhooks/${id}`, { disabled: 'yes' }), 400, 'invalid_parameter', 'disabled');
    expect(other.id).not.toBe(id);
  });

  it('deletes an endpoint, after which it is gone and its URL free again', async () => {
    const me = caller(newAccount(), 'test');
    const { id } = await h.endpoint(me, 'http://localhost:9/gone');
    const res = await h.delete(me, `/v1/webhooks/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'webhook_endpoint', id, deleted: true });
    expectError(await h.get(me, `/v1/webhooks/${id}`), 404, 'resource_not_found', 'id');
    expectError(await h.delete(me, `/v1/webhooks/${id}`), 404, 'resource_not_found', 'id');
    await h.endpoint(me, 'http://localhost:9/gone');
  });

  it("hides other accounts' endpoints and refuses the other environment's with 403", async () => {
    const account = newAccount();
    const test = caller(account, 'test');
    const live = caller(account, 'live');
    const { id } = await h.endpoint(test, 'http://localhost:9/mine');
    const stranger = caller(newAccount(), 'test');
    expectError(await h.get(stranger, `/v1/webhooks/${id}`), 404, 'resource_not_found', 'id');
    expectError(await h.patch(stranger, `/v1/webhooks/${id}`, { disabled: true }), 404, 'resource_not_found', 'id');
    expectError(await h.get(live, `/v1/webhooks/${id}`), 403, 'live_key_test_resource', 'id');
    expectError(await h.get(live, `/v1/webhooks/${id}/deliveries`), 403, 'live_key_test_resource', 'id');
    const liveEndpoint = await h.endpoint(live, 'https://hooks.example.com/live');
    expectError(await h.delete(test, `/v1/webhooks/${liveEndpoint.id}`), 403, 'test_key_live_resource', 'id');
    const liveList = (await h.get(live, '/v1/webhooks')).body as { data: { id: string }[] };
    expect(liveList.data.map((e) => e.id)).toEqual([liveEndpoint.id]);
    expectError(await h.get(test, '/v1/webhooks/we_doesnotexist000000000000'), 404, 'resource_not_found', 'id');
  });

  it('pages the list newest first with a cursor bound to the caller', async () => {
    const me = caller(newAccount(), 'test');
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await h.endpoint(me, `http://localhost:9/p${i}`)).id);
    const first = await h.get(me, '/v1/webhooks?limit=2');
    expect(first.body.has_more).toBe(true);
    const seen = [...first.body.data];
    let cursor: string | null = first.body.next_cursor as string;
    while (cursor) {
      const page = await h.get(me, `/v1/webhooks?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      seen.push(...(page.body as { data: { id: string }[] }).data);
      cursor = page.body.next_cursor as string | null;
    }
    expect(seen.map((e: { id: string }) => e.id)).toEqual([...ids].reverse());

    const foreign = caller(newAccount(), 'test');
    expectError(await h.get(foreign, `/v1/webhooks?cursor=${encodeURIComponent(first.body.next_cursor as string)}`), 400, 'invalid_parameter', 'cursor');
    expectError(await h.get(me, `/v1/webhooks?cursor=${encodeURIComponent(`${first.body.next_cursor as string}x`)}`), 400, 'invalid_parameter', 'cursor');
    expectError(await h.get(me, '/v1/webhooks?limit=0'), 400, 'invalid_parameter', 'limit');
    expectError(await h.get(me, '/v1/webhooks?limit=101'), 400, 'invalid_parameter', 'limit');
    expectError(await h.get(me, '/v1/webhooks?page=2'), 400, 'invalid_parameter', 'page');
  });

  it('needs the internal token and an identity', async () => {
    const me = caller(newAccount(), 'test');
    const res = await h.get(me, '/v1/webhooks').set('x-internal-token', 'wrong-token-wrong-token');
    expect(res.status).toBe(401);
    expectError(await h.get(me, '/v1/webhooks/x/y/z'), 404, 'no_such_route');
  });
});
