import type { Esim, List, Order } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buyEsim, eventTypesOf, eventually, headersFor, newCaller, otherEnvironment, startInventory, type Caller, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});

const keys = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, `v${i}`]));

/** GET /v1/esim with `metadata[key]=value` pairs (encoded as a client would) and other parameters. */
function list(caller: Caller, filter: Record<string, string>, extra = '') {
  const pairs = Object.entries(filter).map(([key, value]) => `${encodeURIComponent(`metadata[${key}]`)}=${encodeURIComponent(value)}`);
  const search = [...pairs, ...(extra ? [extra] : [])].join('&');
  return h.get(caller, `/v1/esim${search ? `?${search}` : ''}`);
}

describe('metadata at purchase', () => {
  it('is set on the order and on each of its eSIMs, everywhere they appear ("" keys are not set)', async () => {
    const caller = newCaller('test');
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU', quantity: 2, metadata: { order_ref: 'A-1001', 'emoji 😀': 'ü', skipped: '' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const order = res.body as Order;
    const expected = { order_ref: 'A-1001', 'emoji 😀': 'ü' };
    expect(order.metadata).toEqual(expected);
    for (const esim of order.esims) {
      expect(esim.metadata).toEqual(expected);
      expect((await h.get(caller, `/v1/esim/${esim.id}`)).body).toEqual(esim);
      const released = await eventually(() => {
        const [event] = h.eventsOf(esim.id);
        expect(event?.type).toBe('esim.released');
        return event;
      });
      expect((released?.data as { object: Esim }).object.metadata).toEqual(expected);
    }
    const page = (await h.get(caller, '/v1/esim')).body as List<Esim>;
    expect(page.data.map((esim) => esim.metadata)).toEqual([expected, expected]);
  });

  it('defaults to {} on the order and its eSIMs', async () => {
    const caller = newCaller('test');
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU' });
    expect(res.body.metadata).toEqual({});
    expect((res.body as Order).esims[0]?.metadata).toEqual({});
  });

  it('accepts exactly the limits: 50 keys, keys of 40 characters, values of 500', async () => {
    const caller = newCaller('test');
    const metadata = { ...keys(49), ['k'.repeat(40)]: 'v'.repeat(500) };
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU', metadata });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.metadata).toEqual(metadata);
  });

  it.each([
    ['51 keys', keys(51), 'metadata'],
    ['a key of 41 characters', { ['k'.repeat(41)]: 'v' }, `metadata[${'k'.repeat(41)}]`],
    ['a key with brackets', { 'a[b]': 'v' }, 'metadata[a[b]]'],
    ['an empty key', { '': 'v' }, 'metadata[]'],
    ['a number value', { count: 3 }, 'metadata[count]'],
    ['a null value', { gone: null }, 'metadata[gone]'],
    ['an object value', { nested: { a: 'b' } }, 'metadata[nested]'],
    ['a value of 501 characters', { note: 'v'.repeat(501) }, 'metadata[note]'],
    ['an array', ['a'], 'metadata'],
    ['a string', 'a=b', 'metadata'],
  ])('refuses %s with invalid_parameter naming %s, and buys nothing', async (_name, metadata, param) => {
    const caller = newCaller('test');
    const res = await h.order(caller, { bundle: 'esim_5GB_30D_EU', metadata });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param });
    expect(res.body.error.message).toContain(param);
    expect((await h.get(caller, '/v1/esim')).body.data).toEqual([]);
  });
});

describe('PATCH /v1/esim/{id} with metadata', () => {
  it('merges: keys set, a key set to "" removed, the rest kept; the answer is what GET shows', async () => {
    const caller = newCaller('test');
    const esim = (await h.order(caller, { bundle: 'esim_5GB_30D_EU', metadata: { a: '1', b: '2' } })).body.esims[0] as Esim;
    const res = await h.update(caller, esim.id, { metadata: { b: '', c: '3', a: 'one' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.metadata).toEqual({ a: 'one', c: '3' });
    expect(res.body.state).toBe('released');
    expect((await h.get(caller, `/v1/esim/${esim.iccid}`)).body).toEqual(res.body);
    // Removing a key that is not there, or setting a value it already has, changes nothing.
    const again = await h.update(caller, esim.id, { metadata: { zzz: '', a: 'one' } });
    expect(again.body).toEqual(res.body);
  });

  it('emits no event for a change of metadata alone; with a state change the event shows the new metadata', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    await eventTypesOf(h, esim.id, 1);
    expect((await h.update(caller, esim.id, { metadata: { note: 'first' } })).status).toBe(200);
    const both = await h.update(caller, esim.id, { state: 'installed', metadata: { note: 'second' } });
    expect(both.status).toBe(200);
    expect(both.body).toMatchObject({ state: 'installed', metadata: { note: 'second' } });
    const types = await eventTypesOf(h, esim.id, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(h.eventsOf(esim.id).map((event) => event.type)).toEqual(['esim.released', 'esim.installed']);
    expect(types).toEqual(['esim.released', 'esim.installed']);
    expect((h.eventsOf(esim.id)[1]?.data as { object: Esim }).object.metadata).toEqual({ note: 'second' });
  });

  it('refuses a merge that would hold more than 50 keys, and changes nothing', async () => {
    const caller = newCaller('test');
    const esim = (await h.order(caller, { bundle: 'esim_5GB_30D_EU', metadata: keys(30, 'a') })).body.esims[0] as Esim;
    const res = await h.update(caller, esim.id, { metadata: keys(21, 'b') });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'metadata' });
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body).toEqual(esim);
    // Replacing keys within the limit is fine: 30 - 1 + 21 = 50.
    const ok = await h.update(caller, esim.id, { metadata: { ...keys(21, 'b'), a0: '' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(Object.keys((ok.body as Esim).metadata)).toHaveLength(50);
  });

  it('refuses a state the life cycle forbids without touching the metadata', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    const res = await h.update(caller, esim.id, { state: 'suspended', metadata: { a: 'b' } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('invalid_state_transition');
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.metadata).toEqual({});
  });

  it('needs state or metadata, and checks each metadata rule', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    const empty = await h.update(caller, esim.id, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ code: 'missing_parameter', param: 'state' });
    const bad = await h.update(caller, esim.id, { metadata: { ok: 'x', count: 1 } });
    expect(bad.body.error).toMatchObject({ code: 'invalid_parameter', param: 'metadata[count]' });
    const long = await h.update(caller, esim.id, { metadata: { ['x'.repeat(41)]: 'v' } });
    expect(long.body.error).toMatchObject({ code: 'invalid_parameter', param: `metadata[${'x'.repeat(41)}]` });
  });

  it('keeps the test/live boundary and hides other accounts’ eSIMs', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    expect((await h.update(otherEnvironment(caller), esim.id, { metadata: { a: 'b' } })).body.error.code).toBe('live_key_test_resource');
    expect((await h.update(newCaller('test'), esim.id, { metadata: { a: 'b' } })).status).toBe(404);
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.metadata).toEqual({});
  });

  it('answers a retry with the same Idempotency-Key from the record written with the change', async () => {
    const caller = newCaller('test');
    const esim = await buyEsim(h, caller);
    const patch = (key: string, body: object) => request(h.app).patch(`/v1/esim/${esim.id}`).set(headersFor(caller)).set('Idempotency-Key', key).send(body);
    const first = await patch('metadata-retry-0001', { metadata: { step: '1' } });
    expect(first.status).toBe(200);
    expect((await patch('metadata-retry-0002', { metadata: { step: '2' } })).body.metadata).toEqual({ step: '2' });
    const retry = await patch('metadata-retry-0001', { metadata: { step: '1' } });
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.metadata).toEqual({ step: '2' });
    const reused = await patch('metadata-retry-0001', { metadata: { step: '3' } });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('idempotency_key_reused');
  });
});

describe('GET /v1/esim?metadata[key]=value', () => {
  let caller: Caller;
  const batch: Esim[] = [];
  beforeAll(async () => {
    caller = newCaller('test');
    // Seven eSIMs of batch "b-7" (four of them for site "north"), among others.
    for (const [quantity, metadata] of [
      [3, { batch: 'b-7', site: 'north' }],
      [2, { batch: 'b-8', site: 'north' }],
      [2, { batch: 'b-7', site: 'south', 'odd key/ü &=': 'a&b=c' }],
      [1, { batch: 'b-7', site: 'north', extra: 'x' }],
      [1, {}],
      [1, { batch: 'b-7' }],
    ] as const) {
      const res = await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity, metadata });
      expect(res.status).toBe(201);
      if ((metadata as { batch?: string }).batch === 'b-7') batch.push(...(res.body as Order).esims);
    }
  });

  it('keeps only the eSIMs that have every pair given', async () => {
    const all = (await list(caller, { batch: 'b-7' }, 'limit=100')).body as List<Esim>;
    expect(all.data.map((esim) => esim.id).sort()).toEqual(batch.map((esim) => esim.id).sort());
    const north = (await list(caller, { batch: 'b-7', site: 'north' }, 'limit=100')).body as List<Esim>;
    expect(north.data).toHaveLength(4);
    expect(north.data.every((esim) => esim.metadata.batch === 'b-7' && esim.metadata.site === 'north')).toBe(true);
    const odd = (await list(caller, { 'odd key/ü &=': 'a&b=c' })).body as List<Esim>;
    expect(odd.data).toHaveLength(2);
    expect((await list(caller, { batch: 'b-9' })).body.data).toEqual([]);
    expect((await list(caller, { batch: 'B-7' })).body.data).toEqual([]);
    // Unencoded brackets are read the same.
    expect((await h.get(caller, '/v1/esim?metadata[batch]=b-8&limit=100')).body.data).toHaveLength(2);
  });

  it('pages through the filtered list, newest first, with no duplicate or gap', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(caller, { batch: 'b-7' }, `limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const page = res.body as List<Esim>;
      seen.push(...page.data.map((esim) => esim.id));
      cursor = page.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const unfiltered = ((await h.get(caller, '/v1/esim?limit=100')).body as List<Esim>).data.map((esim) => esim.id);
    expect(seen).toEqual(unfiltered.filter((id) => seen.includes(id)));
  });

  it('binds the cursor to the filter: another filter, or none, refuses it', async () => {
    const first = (await list(caller, { batch: 'b-7' }, 'limit=2')).body as List<Esim>;
    const cursor = encodeURIComponent(first.next_cursor ?? '');
    for (const res of [
      await list(caller, { batch: 'b-8' }, `cursor=${cursor}`),
      await list(caller, { batch: 'b-7', site: 'north' }, `cursor=${cursor}`),
      await h.get(caller, `/v1/esim?cursor=${cursor}`),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'cursor' });
    }
    // The same filter in another order is the same filter.
    const ordered = (await list(caller, { site: 'north', batch: 'b-7' }, 'limit=1')).body as List<Esim>;
    expect((await list(caller, { batch: 'b-7', site: 'north' }, `cursor=${encodeURIComponent(ordered.next_cursor ?? '')}`)).status).toBe(200);
    // An unfiltered cursor does not carry over to a filtered list either.
    const plain = (await h.get(caller, '/v1/esim?limit=1')).body as List<Esim>;
    expect((await list(caller, { batch: 'b-7' }, `cursor=${encodeURIComponent(plain.next_cursor ?? '')}`)).status).toBe(400);
  });

  it('sees only the caller’s account and environment', async () => {
    expect((await list(newCaller('test'), { batch: 'b-7' })).body.data).toEqual([]);
    expect((await list(otherEnvironment(caller), { batch: 'b-7' })).body.data).toEqual([]);
  });

  it('refuses bad pairs with invalid_parameter naming metadata[key]', async () => {
    const cases: [string, string][] = [
      ['metadata%5Bbatch%5D=', 'metadata[batch]'],
      ['metadata[batch]=a&metadata[batch]=b', 'metadata[batch]'],
      [`metadata[${'k'.repeat(41)}]=v`, `metadata[${'k'.repeat(41)}]`],
      [`metadata[note]=${'v'.repeat(501)}`, 'metadata[note]'],
      ['metadata[a][b]=v', 'metadata[a][b]'],
      ['metadata=b-7', 'metadata'],
      [Array.from({ length: 51 }, (_, i) => `metadata[k${i}]=v`).join('&'), 'metadata'],
      ['meta[batch]=b-7', 'meta[batch]'],
    ];
    for (const [search, param] of cases) {
      const res = await h.get(caller, `/v1/esim?${search}`);
      expect(res.status, search).toBe(400);
      expect(res.body.error, search).toMatchObject({ code: 'invalid_parameter', param });
    }
  });
});
