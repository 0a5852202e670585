import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAiraloFake, type AiraloFake } from '../src/index.ts';
import { airaloClient, type Listed, type One } from './airalo-client.ts';
import { eventually, expectFaithfulExchanges, MB, startReceiver } from './support.ts';

let fake: AiraloFake;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  receiver = await startReceiver();
  fake = await startAiraloFake({ checkResponses: true, usageCacheMs: 0 });
});

afterEach(async () => {
  expectFaithfulExchanges(fake.control);
  await fake.close();
  await receiver.close();
});

const { token, call, order } = airaloClient(() => fake);

interface AiraloPackage {
  id: string;
  type: string;
  day: number;
  is_unlimited: boolean;
  price: number;
  net_price: number;
  prices: { net_price: Record<string, number> };
}
interface Destination {
  slug: string;
  country_code: string;
  operators: { packages: AiraloPackage[] }[];
}

describe('Airalo fake: authentication', () => {
  it('issues a token for JSON, urlencoded and multipart credentials, and refuses bad ones', async () => {
    const { clientId, clientSecret } = fake.credentials;
    const urlencoded = await fetch(`${fake.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials' }),
    });
    expect(urlencoded.status).toBe(200);
    const body: unknown = await urlencoded.json();
    expect(body).toMatchObject({ data: { token_type: 'Bearer', expires_in: 86_400 }, meta: { message: 'success' } });
    const form = new FormData();
    form.set('client_id', clientId);
    form.set('client_secret', clientSecret);
    form.set('grant_type', 'client_credentials');
    expect((await call('/token', { method: 'POST', form })).status).toBe(200);

    const wrongSecret = await call('/token', { method: 'POST', json: { client_id: clientId, client_secret: 'nope', grant_type: 'client_credentials' } });
    expect(wrongSecret).toMatchObject({ status: 401, body: { data: [], meta: { message: 'Client authentication failed' } } });
  });

  it('answers 422 for an unknown client and 401 for a missing, unknown or expired token', async () => {
    const unknown = await call('/token', { method: 'POST', json: { client_id: 'someone-else', client_secret: 'x', grant_type: 'client_credentials' } });
    expect(unknown).toMatchObject({
      status: 422,
      body: { data: { client_id: 'The selected client id is invalid.' }, meta: { message: 'the parameter is invalid' } },
    });
    expect((await call('/balance')).status).toBe(401);
    expect((await call('/balance', { token: 'forged' })).body).toEqual({ data: [], meta: { message: 'Unauthenticated.' } });
    const accessToken = await token();
    expect((await call('/balance', { token: accessToken })).status).toBe(200);
    await fake.control.travel(86_400_000 + 1000);
    expect((await call('/balance', { token: accessToken })).status).toBe(401);
  });
});

describe('Airalo fake: catalogue', () => {
  it('lists local, regional and global packages with net and retail prices in USD', async () => {
    const accessToken = await token();
    const all = await call<Listed<Destination>>('/packages', { token: accessToken });
    expect(all.status).toBe(200);
    const slugs = all.body.data.map((d) => d.slug);
    expect(slugs).toEqual(expect.arrayContaining(['united-states', 'france', 'europe', 'world']));
    const packages = all.body.data.flatMap((d) => d.operators.flatMap((o) => o.packages));
    expect(packages.some((p) => p.is_unlimited)).toBe(true);
    expect(new Set(packages.map((p) => p.day)).size).toBeGreaterThan(2);
    expect(packages.every((p) => p.type === 'sim' && p.net_price < p.price && p.prices.net_price.USD === p.net_price)).toBe(true);

    const global = await call<Listed<Destination>>('/packages?filter[type]=global', { token: accessToken });
    expect(global.body.data.every((d) => d.country_code === '')).toBe(true);
    const germany = await call<Listed<Destination>>('/packages?filter[type]=local&filter[country]=DE', { token: accessToken });
    expect(germany.body.data.map((d) => d.slug)).toEqual(['germany']);
    const withTopups = await call<Listed<Destination>>('/packages?include=topup', { token: accessToken });
    expect(withTopups.body.data.flatMap((d) => d.operators.flatMap((o) => o.packages)).some((p) => p.type === 'topup')).toBe(true);

    const pageTwo = await call<Listed<Destination>>('/packages?limit=3&page=2', { token: accessToken });
    expect(pageTwo.body.meta).toMatchObject({ current_page: 2, per_page: '3', from: 4 });
    expect(pageTwo.body.data).toHaveLength(3);
    const badLimit = await call('/packages?limit=many', { token: accessToken });
    expect(badLimit).toMatchObject({ status: 422, body: { data: { limit: 'The limit must be an integer.' } } });
  });
});

describe('Airalo fake: ordering and finding orders', () => {
  it('orders 1 to 10 eSIMs with SM-DP+ address, matching id and LPA, and finds the order by its description', async () => {
    const accessToken = await token();
    for (const quantity of [1, 3, 10]) {
      const placed = await order(accessToken, 'change-7days-1gb', quantity, `ord_test_${quantity}`);
      expect(placed.sims).toHaveLength(quantity);
      for (const sim of placed.sims) {
        expect(sim.iccid).toMatch(/^89\d{17}$/);
        expect(sim.qrcode).toBe(`LPA:1$${sim.lpa}$${sim.matching_id}`);
        expect(sim.direct_apple_installation_url).toContain(sim.qrcode);
      }
    }
    expect(fake.control.counters()).toMatchObject({ purchases: 3, esimsSold: 14 });

    const found = await call<Listed<{ id: number; code: string; sims: unknown[] }>>('/orders?filter[description]=ord_test_3&include=sims,status', {
      token: accessToken,
    });
    expect(found.body.data).toHaveLength(1);
    const [listed] = found.body.data;
    expect(listed).toMatchObject({ description: 'ord_test_3', quantity: 3, status: { slug: 'completed' } });
    expect(listed!.sims).toHaveLength(3);
    const byId = await call<One<{ code: string }>>(`/orders/${listed!.id}?include=sims`, { token: accessToken });
    expect(byId.body.data.code).toBe(listed!.code);
    expect((await call('/orders/1', { token: accessToken })).status).toBe(404);
  });

  it('takes the official SDK JSON body and refuses what Airalo refuses', async () => {
    const accessToken = await token();
    const json = await call<One<unknown>>('/orders', {
      method: 'POST',
      token: accessToken,
      json: { package_id: 'eurolink-7days-1gb', quantity: 2, type: 'sim', description: 'ord_json' },
    });
    expect(json.status).toBe(200);
    expect(json.body.data).toMatchObject({ quantity: '2', description: 'ord_json', package_id: 'eurolink-7days-1gb' });
    const tooMany = await call('/orders', { method: 'POST', token: accessToken, json: { package_id: 'nope', quantity: 51 } });
    expect(tooMany).toMatchObject({
      status: 422,
      body: {
        data: { package_id: 'The selected package is invalid.', quantity: 'The quantity may not be greater than 50.' },
        meta: { message: 'the parameter is invalid' },
      },
    });
    expect(fake.control.counters().purchases).toBe(1);
  });

  it('delivers an async order to the webhook, signed', async () => {
    const accessToken = await token();
    const accepted = await call<One<{ request_id: string }>>('/orders-async', {
      method: 'POST',
      token: accessToken,
      json: { package_id: 'elan-7days-1gb', quantity: 1, webhook_url: receiver.url, description: 'ord_async' },
    });
    expect(accepted.status).toBe(202);
    await eventually(() => receiver.received.length === 1);
    const [hook] = receiver.received;
    expect(hook!.headers['airalo-signature']).toBe(createHmac('sha512', fake.credentials.clientSecret).update(hook!.body).digest('hex'));
    const payload = JSON.parse(hook!.body) as { data: { sims: { iccid: string }[] } };
    expect(payload.data).toMatchObject({ request_id: accepted.body.data.request_id, description: 'ord_async' });
    expect(payload.data.sims[0]!.iccid).toMatch(/^89/);
  });
});

describe('Airalo fake: eSIM life cycle, usage and notifications', () => {
  it('reports every usage status and sends signed low-data notifications', async () => {
    const accessToken = await token();
    const optIn = await call('/notifications/opt-in', { method: 'POST', token: accessToken, json: { type: 'webhook_low_data', webhook_url: receiver.url } });
    expect(optIn.body).toEqual({ data: { notification: { type: 'webhook_low_data', contact_point: receiver.url } }, meta: { message: 'success' } });
    const [depleting, expiring] = (await order(accessToken, 'change-7days-1gb', 2, 'ord_life')).sims.map((s) => s.iccid);
    const usage = async (iccid: string) => (await call<One<unknown>>(`/sims/${iccid}/usage`, { token: accessToken })).body.data;

    expect(await usage(depleting!)).toMatchObject({ status: 'NOT_ACTIVE', total: 1024, remaining: 1024, is_unlimited: false });
    await fake.control.install(depleting!);
    await fake.control.attach(depleting!);
    expect(await usage(depleting!)).toMatchObject({ status: 'ACTIVE', remaining: 1024 });
    await fake.control.useData(depleting!, 800 * MB);
    expect(await usage(depleting!)).toMatchObject({ status: 'ACTIVE', remaining: 224 });
    await fake.control.deplete(depleting!);
    expect(await usage(depleting!)).toMatchObject({ status: 'FINISHED', remaining: 0 });
    const history = await call<Listed<unknown>>(`/sims/${depleting}/packages`, { token: accessToken });
    expect(history.body.data[0]).toMatchObject({ status: 'FINISHED', remaining: 0, package: { id: 'change-7days-1gb' } });

    await fake.control.attach(expiring!);
    await fake.control.expire(expiring!);
    expect(await usage(expiring!)).toMatchObject({ status: 'EXPIRED' });

    const levels = receiver.received.map((r) => JSON.parse(r.body) as unknown);
    expect(levels).toEqual([
      { level: '75%', package_name: 'change-7days-1gb', remaining_percentage: 22, iccid: depleting },
      { level: '90%', package_name: 'change-7days-1gb', remaining_percentage: 0, iccid: depleting },
      { level: '3days', package_name: 'change-7days-1gb', remaining_percentage: 100, iccid: expiring },
      { level: '1days', package_name: 'change-7days-1gb', remaining_percentage: 100, iccid: expiring },
    ]);
    for (const r of receiver.received) {
      const normalised = JSON.stringify(JSON.parse(r.body) as unknown).replace(/\//g, '\\/');
      expect(r.headers['airalo-signature']).toBe(createHmac('sha512', fake.credentials.clientSecret).update(normalised).digest('hex'));
    }
  });

  it('serves the usage answer from its 20-minute cache, and counts 1 GB as 1024 MB of 1024 x 1024 bytes', async () => {
    await fake.close();
    fake = await startAiraloFake({ checkResponses: true });
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1, 'ord_cache')).sims.map((s) => s.iccid);
    const usage = async () => (await call<One<{ remaining: number; total: number; status: string }>>(`/sims/${iccid}/usage`, { token: accessToken })).body.data;
    expect(await usage()).toMatchObject({ status: 'NOT_ACTIVE', total: 1024, remaining: 1024 });
    await fake.control.useData(iccid!, 1_030_000_000);
    // The answer made before the use is served until the cache runs out (the usage page).
    expect(await usage()).toMatchObject({ status: 'NOT_ACTIVE', remaining: 1024 });
    await fake.control.travel(19 * 60_000);
    expect(await usage()).toMatchObject({ status: 'NOT_ACTIVE', remaining: 1024 });
    await fake.control.travel(60_000);
    // 1024 MB x 1,048,576 bytes = 1,073,741,824 bytes; 43,741,824 left is 41 MB.
    expect(await usage()).toMatchObject({ status: 'ACTIVE', remaining: 41, total: 1024 });
    await fake.control.useData(iccid!, 43_741_824);
    expect(await usage()).toMatchObject({ status: 'ACTIVE', remaining: 41 });
    await fake.control.travel(20 * 60_000);
    expect(await usage()).toMatchObject({ status: 'FINISHED', remaining: 0 });
  });

  it('reports the statuses no handset event reaches (UNKNOWN, RECYCLED) when set', async () => {
    const accessToken = await token();
    const [unknown, recycled] = (await order(accessToken, 'change-7days-1gb', 2)).sims.map((s) => s.iccid);
    await fake.control.setUsageStatus(unknown!, 'UNKNOWN');
    await fake.control.setUsageStatus(recycled!, 'RECYCLED');
    expect((await call<One<{ status: string }>>(`/sims/${unknown}/usage`, { token: accessToken })).body.data.status).toBe('UNKNOWN');
    const sim = await call<One<{ recycled: boolean; recycled_at: string }>>(`/sims/${recycled}`, { token: accessToken });
    expect(sim.body.data.recycled).toBe(true);
    expect(sim.body.data.recycled_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('expires an active eSIM when its validity passes on the clock', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    await fake.control.useData(iccid!, 10 * MB);
    await fake.control.travel(8 * 86_400_000);
    expect((await call<One<{ status: string }>>(`/sims/${iccid}/usage`, { token: await token() })).body.data.status).toBe('EXPIRED');
  });

  it('shows an eSIM with its order, and 404 for an ICCID it did not sell', async () => {
    const accessToken = await token();
    const placed = await order(accessToken, 'uki-mobile-15days-2gb', 1, 'ord_sim');
    const sim = await call<One<unknown>>(`/sims/${placed.sims[0]!.iccid}?include=order,order.status,order.user`, { token: accessToken });
    expect(sim.body.data).toMatchObject({ iccid: placed.sims[0]!.iccid, recycled: false, simable: { id: placed.id, description: 'ord_sim' } });
    const list = await call<Listed<{ iccid: string }>>(`/sims?filter[iccid]=${placed.sims[0]!.iccid}`, { token: accessToken });
    expect(list.body.data.map((s) => s.iccid)).toEqual([placed.sims[0]!.iccid]);
    expect(await call('/sims/8944465400000000000/usage', { token: accessToken })).toMatchObject({
      status: 404,
      body: { data: [], meta: { message: 'messages.resource_not_found' } },
    });
  });

  it('answers the documented 404 for what Airalo does not have: suspend, resume, cancel', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    for (const path of [`/sims/${iccid}/suspend`, `/sims/${iccid}/resume`, `/orders/1/cancel`]) {
      expect((await call(path, { method: 'POST', token: accessToken, json: {} })).status).toBe(404);
    }
    // The strict recorder names them: no such operation in Airalo's documents.
    expect(fake.control.violations().requests.map((v) => v.path)).toEqual([`/v2/sims/${iccid}/suspend`, `/v2/sims/${iccid}/resume`, '/v2/orders/1/cancel']);
    await fake.control.resetObservations();
  });
});
