import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAiraloFake, startEsimGoFake, type AiraloFake, type EsimGoFake, type FakeControl } from '../src/index.ts';
import { expectFaithfulExchanges, startReceiver } from './support.ts';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One vendor behind a common face: how to buy one eSIM and make one authenticated read. */
interface Vendor {
  name: string;
  control: FakeControl;
  origin: string;
  buy(): Promise<string>;
  read(): Promise<Response>;
  /** What `buy` buys, and the account's balance in the vendor's unit. */
  product: string;
  balance(): Promise<number>;
}

async function airalo(options: Parameters<typeof startAiraloFake>[0] = {}): Promise<Vendor & { fake: AiraloFake; token: string }> {
  const fake = await startAiraloFake({ checkResponses: true, checkWebhookOnOptIn: false, ...options });
  cleanups.push(() => fake.close());
  const tokenResponse = await fetch(`${fake.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ client_id: fake.credentials.clientId, client_secret: fake.credentials.clientSecret, grant_type: 'client_credentials' }),
  });
  const token = ((await tokenResponse.json()) as { data: { access_token: string } }).data.access_token;
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  return {
    name: 'airalo',
    fake,
    token,
    control: fake.control,
    origin: fake.origin,
    buy: async () => {
      const response = await fetch(`${fake.url}/orders`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ package_id: 'change-7days-1gb', quantity: 1, description: 'ord_fault' }),
      });
      return ((await response.json()) as { data: { sims: { iccid: string }[] } }).data.sims[0]!.iccid;
    },
    read: () => fetch(`${fake.url}/balance`, { headers }),
    product: 'change-7days-1gb',
    balance: async () =>
      ((await (await fetch(`${fake.url}/balance`, { headers })).json()) as { data: { balances: { availableBalance: { amount: number } } } }).data.balances
        .availableBalance.amount,
  };
}

async function esimGo(options: Parameters<typeof startEsimGoFake>[0] = {}): Promise<Vendor & { fake: EsimGoFake }> {
  const fake = await startEsimGoFake({ checkResponses: true, rateLimit: { limit: 1000, windowMs: 1000 }, ...options });
  cleanups.push(() => fake.close());
  const headers = { 'x-api-key': fake.apiKey, accept: 'application/json' };
  return {
    name: 'esim-go',
    fake,
    control: fake.control,
    origin: fake.origin,
    buy: async () => {
      const response = await fetch(`${fake.url}/orders`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'transaction', assign: true, order: [{ type: 'bundle', quantity: 1, item: 'esim_1GB_7D_GB_V2' }] }),
      });
      return ((await response.json()) as { order: { iccids: string[] }[] }).order[0]!.iccids[0]!;
    },
    read: () => fetch(`${fake.url}/organisation`, { headers }),
    product: 'esim_1GB_7D_GB_V2',
    balance: async () => ((await (await fetch(`${fake.url}/organisation`, { headers })).json()) as { balance: number }).balance,
  };
}

describe.each([
  ['airalo', () => airalo()],
  ['esim-go', () => esimGo()],
])('%s fake: control surface and faults', (_name, start) => {
  it('drives the life cycle through /_fake and reads what the fake holds', async () => {
    const vendor = await start();
    const iccid = await vendor.buy();
    const post = (path: string, body?: unknown) =>
      fetch(`${vendor.origin}/_fake${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    for (const step of ['install', 'attach']) expect((await post(`/esims/${iccid}/${step}`)).status).toBe(200);
    expect((await post(`/esims/${iccid}/use`, { bytes: 5_000_000 })).status).toBe(200);
    expect((await post(`/esims/${iccid}/deplete`)).status).toBe(200);
    expect((await post(`/esims/${iccid}/expire`)).status).toBe(200);
    const esim = (await (await fetch(`${vendor.origin}/_fake/esims/${iccid}`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(esim)).toMatch(/EXPIRED|expired/);
    expect((await post('/esims/89000000000000000000/attach')).status).toBe(400);
    const counters = (await (await fetch(`${vendor.origin}/_fake/counters`)).json()) as { purchases: number; esimsSold: number };
    expect(counters).toMatchObject({ purchases: 1, esimsSold: 1 });
    expectFaithfulExchanges(vendor.control);
  });

  it('changes a price over /_fake/prices: the next purchase is charged the new price; a bad price or name is a 400', async () => {
    const vendor = await start();
    const put = (name: string, body: unknown) =>
      fetch(`${vendor.origin}/_fake/prices/${name}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await put(vendor.product, { price: 7.25 })).status).toBe(200);
    const before = await vendor.balance();
    await vendor.buy();
    expect(Math.round((before - (await vendor.balance())) * 100)).toBe(725);
    const refused = [await put(vendor.product, { price: '7' }), await put(vendor.product, { price: -1 }), await put('no-such-product', { price: 1 })];
    for (const answer of refused) {
      expect(answer.status).toBe(400);
      expect(typeof ((await answer.json()) as { error: unknown }).error).toBe('string');
    }
  });

  it('goes down (connection refused) and comes back on the same port', async () => {
    const vendor = await start();
    await vendor.control.fault({ kind: 'down' });
    await expect(vendor.read()).rejects.toThrow();
    await vendor.control.clearFaults();
    expect((await vendor.read()).status).toBe(200);
  });

  it('comes back by itself after a timed outage set over HTTP', async () => {
    const vendor = await start();
    const set = await fetch(`${vendor.origin}/_fake/faults`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'down', forMs: 300 }),
    });
    expect(set.status).toBe(200);
    await expect(vendor.read()).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await vendor.read()).status).toBe(200);
  });

  it("answers slowly, then with injected 429 and 5xx in the vendor's own words, then recovers", async () => {
    const vendor = await start();
    await vendor.control.fault({ kind: 'slow', delayMs: 300 });
    const started = Date.now();
    expect((await vendor.read()).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await vendor.control.clearFaults();

    await vendor.control.fault({ kind: 'status', status: 429, count: 1 });
    const limited = await vendor.read();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toEqual({ message: vendor.name === 'airalo' ? 'Too Many Attempts.' : 'Rate limit exceeded' });

    await vendor.control.fault({ kind: 'status', status: 503, count: 2 });
    expect((await vendor.read()).status).toBe(503);
    expect((await vendor.read()).status).toBe(503);
    expect((await vendor.read()).status).toBe(200);
    const calls = Object.values(vendor.control.counters().calls).reduce((a, b) => a + b, 0);
    expect(calls).toBeGreaterThanOrEqual(5);
  });

  it('answers late: the purchase is made and counted at once, its answer leaves after the delay', async () => {
    const vendor = await start();
    await vendor.control.fault({ kind: 'late', delayMs: 600 });
    const started = Date.now();
    const bought = vendor.buy().then((iccid) => ({ iccid, after: Date.now() - started }));
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Done before it is answered.
    expect(vendor.control.counters().purchases).toBe(1);
    const { iccid, after } = await bought;
    expect(after).toBeGreaterThanOrEqual(590);
    expect(iccid).toMatch(/^\d{19,20}$/);
    await vendor.control.clearFaults();
    const quick = Date.now();
    expect((await vendor.read()).status).toBe(200);
    expect(Date.now() - quick).toBeLessThan(500);
    expectFaithfulExchanges(vendor.control);
  });

  it('drops every callback when callbacks are off, so polling is the only path', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const vendor = await start();
    if (vendor.name === 'airalo') {
      const { fake, token } = vendor as Awaited<ReturnType<typeof airalo>>;
      await fetch(`${fake.url}/notifications/opt-in`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, accept: 'application/json', 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'webhook_low_data', webhook_url: receiver.url }),
      });
    } else (vendor as Awaited<ReturnType<typeof esimGo>>).fake.control.setCallbackUrl(receiver.url);
    const iccid = await vendor.buy();
    const put = await fetch(`${vendor.origin}/_fake/callbacks`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: false }),
    });
    expect(put.status).toBe(200);
    await vendor.control.deplete(iccid);
    expect(receiver.received).toEqual([]);
    expect(vendor.control.callbacks().length).toBeGreaterThan(0);
    expect(vendor.control.callbacks().every((c) => c.outcome === 'dropped')).toBe(true);
  });
});

describe('documented rate limits', () => {
  it('Airalo: 3 token requests a minute per client, then 429 with Retry-After and X-RateLimit headers', async () => {
    const vendor = await airalo();
    const { fake } = vendor;
    const ask = () =>
      fetch(`${fake.url}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ client_id: fake.credentials.clientId, client_secret: fake.credentials.clientSecret, grant_type: 'client_credentials' }),
      });
    // One token was taken when the fake was set up.
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('3');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await refused.json()).toEqual({ message: 'Too Many Attempts.' });
    await fake.control.travel(60_000);
    expect((await ask()).status).toBe(200);
    expectFaithfulExchanges(fake.control);
  });

  it('Airalo: 10 usage reads a minute per ICCID', async () => {
    const vendor = await airalo({ rateLimits: { usagePerClient: { limit: 100, windowMs: 1000 } } });
    const iccid = await vendor.buy();
    const read = () => fetch(`${vendor.fake.url}/sims/${iccid}/usage`, { headers: { authorization: `Bearer ${vendor.token}`, accept: 'application/json' } });
    for (let i = 0; i < 10; i++) expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(429);
    expectFaithfulExchanges(vendor.control);
  });

  it('eSIM Go: 10 requests a second per IP, every answer carrying X-Ratelimit-*, then 429 with Retry-After: 1', async () => {
    const vendor = await esimGo({ rateLimit: { limit: 10, windowMs: 60_000 } });
    const answers = [];
    for (let i = 0; i < 11; i++) answers.push(await vendor.read());
    expect(answers.slice(0, 10).every((a) => a.status === 200)).toBe(true);
    expect(answers[0]!.headers.get('x-ratelimit-limit')).toBe('10');
    expect(answers[0]!.headers.get('x-ratelimit-remaining')).toBe('9');
    expect(answers[0]!.headers.get('x-ratelimit-cost')).toBe('1');
    expect(Date.parse(answers[0]!.headers.get('x-ratelimit-reset')!)).toBeGreaterThan(Date.now());
    expect(answers[10]!.status).toBe(429);
    expect(answers[10]!.headers.get('retry-after')).toBe('1');
    expect(await answers[10]!.json()).toEqual({ message: 'Rate limit exceeded' });
  });
});

describe('state across restarts and ICCID length', () => {
  it('remembers what it sold when restarted on the same state file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-suppliers-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const credentials = { clientId: 'fake-partner', clientSecret: 'fake-secret-0123456789' };
    const first = await airalo({ ...credentials, stateFile: join(dir, 'airalo.json') });
    const iccid = await first.buy();
    await first.fake.close();
    const second = await airalo({ ...credentials, stateFile: join(dir, 'airalo.json') });
    const found = await fetch(`${second.fake.url}/orders?filter[description]=ord_fault&include=sims`, {
      headers: { authorization: `Bearer ${second.token}`, accept: 'application/json' },
    });
    const body = (await found.json()) as { data: { sims: { iccid: string }[] }[] };
    expect(body.data[0]!.sims[0]!.iccid).toBe(iccid);

    const goFirst = await esimGo({ apiKey: 'k-1', stateFile: join(dir, 'esim-go.json') });
    const goIccid = await goFirst.buy();
    await goFirst.fake.close();
    const goSecond = await esimGo({ apiKey: 'k-1', stateFile: join(dir, 'esim-go.json') });
    expect((await fetch(`${goSecond.fake.url}/esims/${goIccid}`, { headers: { 'x-api-key': 'k-1' } })).status).toBe(200);
  });

  it('issues 20-digit ICCIDs when asked, Luhn-checked like the 19-digit default', async () => {
    for (const vendor of [await airalo({ iccidDigits: 20 }), await esimGo({ iccidDigits: 20 })]) {
      const iccid = await vendor.buy();
      expect(iccid).toMatch(/^89\d{18}$/);
      const digits = [...iccid].reverse().map(Number);
      const sum = digits.reduce((s, d, i) => s + (i % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0);
      expect(sum % 10).toBe(0);
    }
  });
});
