import { newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersFor, newCaller, operatorHeaders, startInventory, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});

const put = (accountId: string, body: unknown) =>
  request(h.app)
    .put(`/internal/accounts/${accountId}`)
    .set(operatorHeaders())
    .send(body as object);
const get = (accountId: string) => request(h.app).get(`/internal/accounts/${accountId}`).set(operatorHeaders());

describe('account settings (operator)', () => {
  it('starts unverified with no balance', async () => {
    const accountId = newId('account');
    const res = await get(accountId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'account_settings', account_id: accountId, verified: false, live_balance_cents: 0 });
  });

  it('sets verification and balance, keeping what a call leaves out', async () => {
    const accountId = newId('account');
    expect((await put(accountId, { verified: true })).body).toMatchObject({ verified: true, live_balance_cents: 0 });
    expect((await put(accountId, { live_balance_cents: 12_345 })).body).toMatchObject({ verified: true, live_balance_cents: 12_345 });
    expect((await put(accountId, {})).body).toMatchObject({ verified: true, live_balance_cents: 12_345 });
    expect((await get(accountId)).body).toMatchObject({ verified: true, live_balance_cents: 12_345 });
  });

  it.each([
    [{ verified: 'yes' }, 'verified'],
    [{ live_balance_cents: -1 }, 'live_balance_cents'],
    [{ live_balance_cents: 1.5 }, 'live_balance_cents'],
    [{ live_balance_cents: '100' }, 'live_balance_cents'],
    [{ balance: 100 }, 'balance'],
  ])('refuses %o', async (body, param) => {
    const res = await put(newId('account'), body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('refuses a malformed account id', async () => {
    const res = await put('not-an-account', { verified: true });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'accountId' });
  });

  it('refuses a call without the internal token', async () => {
    const res = await request(h.app)
      .put(`/internal/accounts/${newId('account')}`)
      .send({ verified: true });
    expect(res.status).toBe(401);
  });

  it('is out of reach of a call made for an API key (a caller identity): 404, nothing changed', async () => {
    const accountId = newId('account');
    const res = await request(h.app)
      .put(`/internal/accounts/${accountId}`)
      .set(headersFor(newCaller('live', accountId)))
      .send({ verified: true });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'no_such_route' });
    expect(
      (
        await request(h.app)
          .get(`/internal/accounts/${accountId}`)
          .set(headersFor(newCaller('live', accountId)))
      ).status,
    ).toBe(404);
    expect((await get(accountId)).body.verified).toBe(false);
  });
});
