import type { Bundle } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersFor, newCaller, startCatalogue, type CatalogueHarness } from './support.ts';

let h: CatalogueHarness;
beforeAll(async () => {
  h = await startCatalogue();
});
afterAll(async () => {
  await h.close();
});

const testCaller = newCaller('test');

const list = (query: Record<string, string | number>, caller = testCaller) => request(h.app).get('/v1/esim/bundles').query(query).set(headersFor(caller));

async function listAll(query: Record<string, string | number>, caller = testCaller): Promise<Bundle[]> {
  const all: Bundle[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const res = await list({ ...query, ...(cursor && { cursor }) }, caller);
    expect(res.status).toBe(200);
    all.push(...(res.body.data as Bundle[]));
    if (!res.body.has_more) {
      expect(res.body.next_cursor).toBeNull();
      return all;
    }
    cursor = res.body.next_cursor as string;
  }
  throw new Error('paging did not end');
}

describe('GET /v1/esim/bundles with a test key', () => {
  it('lists the seeded sandbox catalogue by name, simulated and not rated', async () => {
    const res = await list({ limit: 100 });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.has_more).toBe(false);
    const bundles = res.body.data as Bundle[];
    expect(bundles.length).toBeGreaterThanOrEqual(25);
    const names = bundles.map((b) => b.name);
    expect(names).toEqual([...names].sort());
    for (const b of bundles) {
      expect(b).toMatchObject({ object: 'bundle', currency: 'USD', simulated: true, rated: false });
      expect(b).not.toHaveProperty('id');
    }
    expect(names).toContain('esim_5GB_30D_EU');
    expect(names).not.toContain('esim_2GB_14D_EU_LEGACY');
    const unlimited = bundles.find((b) => b.unlimited);
    expect(unlimited?.data_mb).toBeNull();
    // The sandbox catalogue changes only by migration: callers (and the gateway) may keep it a minute.
    expect(res.headers['cache-control']).toBe('private, max-age=60');
  });

  it('defaults to 20 per page and pages without duplicate or gap', async () => {
    const first = await list({});
    expect(first.body.data).toHaveLength(20);
    expect(first.body.has_more).toBe(true);
    const everything = (await list({ limit: 100 })).body.data as Bundle[];
    const paged = await listAll({ limit: 3 });
    expect(paged.map((b) => b.name)).toEqual(everything.map((b) => b.name));
  });

  it('keeps bundles that cover all the listed countries, ignoring case', async () => {
    const bundles = await listAll({ countries: 'gb,Fr', limit: 100 });
    expect(bundles.length).toBeGreaterThan(0);
    for (const b of bundles) expect(b.countries).toEqual(expect.arrayContaining(['GB', 'FR']));
    const names = bundles.map((b) => b.name);
    expect(names).toContain('esim_5GB_30D_EU');
    expect(names).toContain('esim_5GB_30D_GLOBAL');
    expect(names).not.toContain('esim_5GB_30D_GB');
    expect(names).not.toContain('esim_3GB_30D_FR');
  });

  it('finds single-country bundles by their country', async () => {
    const names = (await listAll({ countries: 'jp' })).map((b) => b.name);
    expect(names).toEqual(expect.arrayContaining(['esim_5GB_30D_JP', 'esim_10GB_30D_ASIA', 'esim_1GB_7D_GLOBAL']));
    expect(names).not.toContain('esim_5GB_30D_EU');
  });

  it('filters by region, with countries too', async () => {
    const europe = await listAll({ region: 'europe' });
    expect(europe.length).toBeGreaterThan(3);
    expect(europe.map((b) => b.name)).toEqual(expect.arrayContaining(['esim_5GB_30D_EU', 'esim_3GB_30D_FR']));
    expect(europe.map((b) => b.name)).not.toContain('esim_5GB_30D_JP');
    const both = await listAll({ region: 'europe', countries: 'DE' });
    expect(both.map((b) => b.name).sort()).toEqual(['esim_20GB_30D_EU', 'esim_5GB_30D_DE', 'esim_5GB_30D_EU', 'esim_5GB_30D_EU_FIRSTUSE', 'esim_UL_15D_EU']);
    const global = await listAll({ region: 'global' });
    expect(global.every((b) => b.name.endsWith('_GLOBAL'))).toBe(true);
  });

  it('answers an empty list when nothing matches', async () => {
    const res = await list({ countries: 'AQ' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it.each([
    [{ region: 'mars' }, 'region'],
    [{ countries: 'GBR' }, 'countries'],
    [{ countries: 'GB,' }, 'countries'],
    [{ countries: 'G1' }, 'countries'],
    [{ limit: 0 }, 'limit'],
    [{ limit: 101 }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ limit: 2.5 }, 'limit'],
    [{ colour: 'blue' }, 'colour'],
  ])('refuses %o with invalid_parameter', async (query, param) => {
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'invalid_parameter', param });
    expect(res.body.error.link).toMatch(/\/v1\/errors\/invalid_parameter$/);
  });

  describe('cursors', () => {
    it('refuses an altered cursor', async () => {
      const cursor = (await list({ limit: 2 })).body.next_cursor as string;
      const [payload = '', signature = ''] = cursor.split('.');
      const forged = Buffer.from(JSON.stringify({ v: 1, p: 'esim_5GB_30D_EU' })).toString('base64url');
      for (const bad of [`${forged}.${signature}`, `${payload}.${signature.slice(1)}`, 'not-a-cursor', `${payload}x.${signature}`]) {
        const res = await list({ limit: 2, cursor: bad });
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
      }
    });

    it('refuses a cursor of another account, environment or filter', async () => {
      const cursor = (await list({ limit: 2, region: 'europe' })).body.next_cursor as string;
      expect((await list({ limit: 2, region: 'europe', cursor })).status).toBe(200);
      for (const [query, caller] of [
        [{ region: 'europe', cursor }, newCaller('test')],
        [{ region: 'europe', cursor }, newCaller('live', testCaller.accountId)],
        [{ region: 'asia', cursor }, testCaller],
        [{ cursor }, testCaller],
        [{ region: 'europe', countries: 'FR', cursor }, testCaller],
      ] as const) {
        const res = await list({ limit: 2, ...query }, caller);
        expect(res.status).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
      }
    });

    it('binds countries whatever their order and case', async () => {
      const cursor = (await list({ limit: 1, countries: 'GB,FR' })).body.next_cursor as string;
      const res = await list({ limit: 1, countries: 'fr,gb', cursor });
      expect(res.status).toBe(200);
    });
  });
});

describe('GET /v1/esim/bundles with a live key', () => {
  const liveCaller = newCaller('live');

  it('lists the supplier’s catalogue at retail prices, rated and not simulated', async () => {
    // The eSIM Go fake's 12 bundles, over two pages.
    const bundles = await listAll({ limit: 7 }, liveCaller);
    expect(bundles.length).toBeGreaterThanOrEqual(12);
    const names = bundles.map((b) => b.name);
    expect(names).toEqual([...names].sort());
    expect(new Set(names).size).toBe(names.length);
    for (const b of bundles) {
      expect(b).toMatchObject({ simulated: false, rated: true, currency: 'USD' });
      expect(b.price_cents % 100).toBe(99);
    }
    expect(names).not.toContain('esim_1GB_3D_US_DEMO');
    expect(names).not.toContain('esim_2GB_14D_EU_LEGACY');
  });

  it('applies the same filters', async () => {
    const bundles = await listAll({ countries: 'gb,fr', region: 'europe' }, liveCaller);
    expect(bundles.map((b) => b.name).sort()).toEqual(['esim_10GB_30D_EUR_V2']);
  });

  it('refuses a sandbox cursor', async () => {
    const cursor = (await list({ limit: 2 })).body.next_cursor as string;
    const res = await list({ limit: 2, cursor }, newCaller('live', testCaller.accountId));
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('cursor');
  });
});
