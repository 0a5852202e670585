import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAiraloFake, type AiraloFake } from '../src/index.ts';
import { airaloClient, type Listed, type One } from './airalo-client.ts';
import { expectFaithfulExchanges, MB } from './support.ts';

/** Airalo's top-up section (GET /v2/sims/{iccid}/topups, POST /v2/orders/topups), every exchange checked against its document. */
let fake: AiraloFake;

beforeEach(async () => {
  fake = await startAiraloFake({ checkResponses: true, usageCacheMs: 0 });
});

afterEach(async () => {
  expectFaithfulExchanges(fake.control);
  await fake.close();
});

const { token, call, order, balance } = airaloClient(() => fake);

interface TopupPackage {
  id: string;
  type: string;
  amount: number;
  day: number;
  price: number;
  net_price: number;
}
interface TopupOrder {
  id: number;
  code: string;
  package_id: string;
  type: string;
  quantity: number;
  description: string;
  validity: number;
  net_price: number;
}

function topupForm(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

describe('Airalo fake: top-ups', () => {
  it('lists the top-up packages of the eSIM’s operator, none where it has none, 404 for an ICCID it did not sell', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    const listed = await call<{ pricing: { model: string }; data: TopupPackage[] }>(`/sims/${iccid}/topups`, { token: accessToken });
    expect(listed.status).toBe(200);
    expect(listed.body.pricing).toMatchObject({ model: 'net_pricing' });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: 'change-7days-1gb-topup', type: 'topup', amount: 1024, day: 7, price: 4.5, net_price: 1.8 }),
    ]);

    const [french] = (await order(accessToken, 'elan-7days-1gb', 1)).sims.map((s) => s.iccid);
    expect((await call<{ data: unknown[] }>(`/sims/${french}/topups`, { token: accessToken })).body.data).toEqual([]);

    const unknown = await call(`/sims/8944465400000000000/topups`, { token: accessToken });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ data: [], meta: { message: 'messages.resource_not_found' } });
  });

  it('buys a top-up with the documented form: an order of type topup found by its description, one more package, its data added', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    const before = await balance(accessToken);
    const purchases = fake.control.counters().purchases;
    const res = await call<One<TopupOrder>>('/orders/topups', {
      method: 'POST',
      token: accessToken,
      form: topupForm({ package_id: 'change-7days-1gb-topup', iccid: iccid!, description: 'top_fake_1' }),
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      package_id: 'change-7days-1gb-topup',
      type: 'topup',
      quantity: 1,
      description: 'top_fake_1',
      validity: 7,
      net_price: 1.8,
    });
    expect(fake.control.counters().purchases).toBe(purchases + 1);
    expect(await balance(accessToken)).toBeCloseTo(before - 1.8, 2);

    const found = await call<Listed<{ id: number; type: string; description: string; sims: { iccid: string }[] }>>(
      `/orders?filter[description]=top_fake_1&include=sims`,
      { token: accessToken },
    );
    expect(found.body.data).toEqual([
      expect.objectContaining({ id: res.body.data.id, type: 'topup', description: 'top_fake_1', sims: [expect.objectContaining({ iccid })] }),
    ]);

    const history = await call<Listed<{ package: { id: string }; remaining: number }>>(`/sims/${iccid}/packages`, { token: accessToken });
    expect(history.body.data.map((entry) => entry.package.id)).toEqual(['change-7days-1gb-topup', 'change-7days-1gb']);
    const usage = await call<One<{ total: number; remaining: number }>>(`/sims/${iccid}/usage`, { token: accessToken });
    expect(usage.body.data).toMatchObject({ total: 2048, remaining: 2048 });
  });

  it('revives an eSIM whose data ran out: ACTIVE again with the top-up’s data, used after its own', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    await fake.control.attach(iccid!);
    await fake.control.deplete(iccid!);
    const usage = async () => (await call<One<{ status: string; total: number; remaining: number }>>(`/sims/${iccid}/usage`, { token: accessToken })).body.data;
    expect(await usage()).toMatchObject({ status: 'FINISHED', remaining: 0 });
    // The official SDK's JSON body, without a description: Airalo names the order itself.
    const res = await call<One<TopupOrder>>('/orders/topups', { method: 'POST', token: accessToken, json: { package_id: 'change-7days-1gb-topup', iccid } });
    expect(res.status).toBe(200);
    expect(res.body.data.description).toBe(`Topup (${iccid})`);
    expect(await usage()).toMatchObject({ status: 'ACTIVE', total: 2048, remaining: 1024 });
    await fake.control.useData(iccid!, 100 * MB);
    const history = await call<Listed<{ status: string; remaining: number; package: { id: string } }>>(`/sims/${iccid}/packages`, { token: accessToken });
    expect(history.body.data).toEqual([
      expect.objectContaining({ status: 'ACTIVE', remaining: 924, package: expect.objectContaining({ id: 'change-7days-1gb-topup' }) }),
      expect.objectContaining({ status: 'FINISHED', remaining: 0, package: expect.objectContaining({ id: 'change-7days-1gb' }) }),
    ]);
  });

  it('refuses what the document refuses: missing fields, a package that cannot top the eSIM up, a recycled eSIM (code 73)', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    const post = (fields: Record<string, string>) => call('/orders/topups', { method: 'POST', token: accessToken, form: topupForm(fields) });
    const purchases = fake.control.counters().purchases;

    const wrong = await post({ iccid: iccid!, package_id: 'change-7days-1gb' });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toEqual({ data: { package_id: 'invalid topup package' }, meta: { message: 'the parameter is invalid' } });

    await fake.control.setUsageStatus(iccid!, 'RECYCLED');
    const recycled = await post({ iccid: iccid!, package_id: 'change-7days-1gb-topup' });
    expect(recycled.status).toBe(422);
    expect(recycled.body).toEqual({ code: 73, reason: `The eSIM with iccid ${iccid} has been recycled. It can no longer be used or topped up.` });
    expect((await call(`/sims/${iccid}/topups`, { token: accessToken })).body).toMatchObject({ code: 73 });
    expect(fake.control.counters().purchases).toBe(purchases);

    // A request without the required fields is answered as the document's example, and is itself
    // recorded as not matching the document (the check that holds every adapter request to it).
    expect((await post({ description: 'x' })).body).toEqual({
      data: { iccid: 'The iccid field is required.', package_id: 'The package id field is required.' },
      meta: { message: 'the parameter is invalid' },
    });
    expect(fake.control.violations().requests).toEqual([
      expect.objectContaining({
        path: '/v2/orders/topups',
        problems: expect.arrayContaining(["request body: must have required property 'iccid'"]) as unknown,
      }),
    ]);
    await fake.control.resetObservations();
  });

  it('is slow at one operation when told: the top-up is made at once, only its answer waits; other calls answer at once', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    await fake.control.fault({ kind: 'late', delayMs: 600, path: '/v2/orders/topups' });
    const started = Date.now();
    const bought = call('/orders/topups', {
      method: 'POST',
      token: accessToken,
      json: { package_id: 'change-7days-1gb-topup', iccid, description: 'top_late' },
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(fake.control.counters().purchases).toBe(2);
    const quick = Date.now();
    expect((await call(`/sims/${iccid}/topups`, { token: accessToken })).status).toBe(200);
    expect(Date.now() - quick).toBeLessThan(400);
    expect((await bought).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    await fake.control.clearFaults();
  });

  it('fails one operation when told: a 503 to the top-up order, nothing bought; other calls answered', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    await fake.control.fault({ kind: 'status', status: 503, count: 1, path: '/v2/orders/topups' });
    expect((await call(`/sims/${iccid}/topups`, { token: accessToken })).status).toBe(200);
    const failed = await call('/orders/topups', {
      method: 'POST',
      token: accessToken,
      json: { package_id: 'change-7days-1gb-topup', iccid, description: 'top_503' },
    });
    expect(failed.status).toBe(503);
    expect(fake.control.counters().purchases).toBe(1);
    expect(fake.control.state().orders.filter((o) => o.description === 'top_503')).toEqual([]);
  });
});
