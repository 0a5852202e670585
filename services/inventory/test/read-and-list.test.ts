import type { Esim } from '@connectivity/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyEsim, newCaller, otherEnvironment, startInventory, type Caller, type Harness } from './support.ts';

let h: Harness;
let liveCaller: Caller;
let testEsim: Esim;
let liveEsim: Esim;
beforeAll(async () => {
  h = await startInventory();
  liveCaller = newCaller('live');
  await h.fund(liveCaller.accountId, { verified: true, live_balance_cents: 1_000_000 });
  liveEsim = await buyEsim(h, liveCaller);
  testEsim = await buyEsim(h, otherEnvironment(liveCaller));
});
afterAll(async () => {
  await h.close();
});

describe('GET /v1/esim/{id}', () => {
  it('reads an eSIM by id and by ICCID', async () => {
    const testCaller = otherEnvironment(liveCaller);
    const byId = await h.get(testCaller, `/v1/esim/${testEsim.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual(testEsim);
    const byIccid = await h.get(testCaller, `/v1/esim/${testEsim.iccid}`);
    expect(byIccid.status).toBe(200);
    expect(byIccid.body).toEqual(testEsim);
    expect((await h.get(liveCaller, `/v1/esim/${liveEsim.iccid}`)).body).toEqual(liveEsim);
  });

  it('answers 404 resource_not_found for an unknown id or ICCID', async () => {
    for (const id of ['esim_00000000000000000000000000', '8988299000000000000', 'nonsense']) {
      const res = await h.get(liveCaller, `/v1/esim/${id}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ type: 'not_found', code: 'resource_not_found', param: 'id' });
    }
  });

  it('hides another account’s eSIM behind a 404', async () => {
    for (const [caller, esim] of [
      [newCaller('test'), testEsim],
      [newCaller('live'), liveEsim],
    ] as const) {
      for (const id of [esim.id, esim.iccid]) {
        const res = await h.get(caller, `/v1/esim/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('resource_not_found');
      }
    }
  });

  it('refuses a test key on a live eSIM and a live key on a test eSIM', async () => {
    const testKey = await h.get(otherEnvironment(liveCaller), `/v1/esim/${liveEsim.id}`);
    expect(testKey.status).toBe(403);
    expect(testKey.body.error).toMatchObject({ type: 'permission', code: 'test_key_live_resource' });
    const liveKey = await h.get(liveCaller, `/v1/esim/${testEsim.iccid}`);
    expect(liveKey.status).toBe(403);
    expect(liveKey.body.error).toMatchObject({ type: 'permission', code: 'live_key_test_resource' });
  });

  it('keeps the boundary on PATCH and usage too', async () => {
    const testCaller = otherEnvironment(liveCaller);
    expect((await h.patch(testCaller, liveEsim.id, 'expired')).body.error.code).toBe('test_key_live_resource');
    expect((await h.patch(liveCaller, testEsim.id, 'expired')).body.error.code).toBe('live_key_test_resource');
    expect((await h.patch(newCaller('test'), testEsim.id, 'expired')).status).toBe(404);
    expect((await h.usage(testCaller, liveEsim.id, 1)).body.error.code).toBe('test_key_live_resource');
    expect((await h.usage(liveCaller, testEsim.iccid, 1)).body.error.code).toBe('live_key_test_resource');
    const foreign = await h.usage(newCaller('test'), testEsim.id, 1);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatchObject({ code: 'resource_not_found', param: 'esim' });
    // Nothing changed.
    expect((await h.get(testCaller, `/v1/esim/${testEsim.id}`)).body).toEqual(testEsim);
    expect((await h.get(liveCaller, `/v1/esim/${liveEsim.id}`)).body).toEqual(liveEsim);
  });
});

describe('GET /v1/esim', () => {
  it('pages through hundreds of eSIMs, newest first, with no duplicate or gap', async () => {
    const caller = newCaller('test');
    const bought: string[] = [];
    for (let i = 0; i < 25; i += 1) {
      const res = await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 10 });
      expect(res.status).toBe(201);
      bought.push(...(res.body.esims as Esim[]).map((e) => e.id));
    }
    // Someone else's eSIMs, and the same account's live ones, never show up.
    await h.order(newCaller('test'), { bundle: 'esim_1GB_7D_US', quantity: 5 });

    for (const limit of [100, 7]) {
      const seen: Esim[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 200; page += 1) {
        const res = await h.get(caller, `/v1/esim?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.object).toBe('list');
        expect(res.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...(res.body.data as Esim[]));
        if (!res.body.has_more) {
          expect(res.body.next_cursor).toBeNull();
          break;
        }
        cursor = res.body.next_cursor as string;
      }
      const ids = seen.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual([...bought].sort());
      // Newest first, then by id.
      for (let i = 1; i < seen.length; i += 1) {
        const a = seen[i - 1];
        const b = seen[i];
        if (!a || !b) continue;
        expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
      }
    }
  });

  it('shows 20 by default and only the caller’s environment', async () => {
    const caller = newCaller('test');
    await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 10 });
    await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 10 });
    await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 3 });
    const res = await h.get(caller, '/v1/esim');
    expect(res.body.data).toHaveLength(20);
    expect(res.body.has_more).toBe(true);
    const live = await h.get(otherEnvironment(caller), '/v1/esim');
    expect(live.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it('refuses a bad limit', async () => {
    for (const limit of ['0', '101', 'abc', '1.5', '-1']) {
      const res = await h.get(liveCaller, `/v1/esim?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
    }
    const unknown = await h.get(liveCaller, '/v1/esim?state=active');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: 'invalid_parameter', param: 'state' });
  });

  it('refuses an altered or foreign cursor', async () => {
    const caller = newCaller('test');
    await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity: 3 });
    const cursor = (await h.get(caller, '/v1/esim?limit=1')).body.next_cursor as string;
    expect((await h.get(caller, `/v1/esim?limit=1&cursor=${cursor}`)).status).toBe(200);
    const [payload = '', signature = ''] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, p: { created_at: 9_999_999_999, id: 'esim_z' } })).toString('base64url');
    for (const [who, bad] of [
      [caller, `${forged}.${signature}`],
      [caller, `${payload}.${signature.slice(2)}`],
      [caller, 'garbage'],
      [newCaller('test'), cursor],
      [otherEnvironment(caller), cursor],
    ] as const) {
      const res = await h.get(who, `/v1/esim?limit=1&cursor=${encodeURIComponent(bad)}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    }
  });
});
