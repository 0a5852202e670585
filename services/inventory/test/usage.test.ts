import type { Esim } from '@connectivity/contracts';
import { NO_CLAIM } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordUsage } from '../src/use-cases/record-usage.ts';
import { buyEsim, eventTypesOf, headersFor, newCaller, startInventory, type Harness } from './support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h.close();
});

const caller = newCaller('test');
const GB = 1_000_000_000;

describe('POST /internal/esims/{id}/usage', () => {
  it('installs and activates a released eSIM on its first usage', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    const res = await h.usage(caller, esim.id, 1_000);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: esim.id, state: 'active', data_used_bytes: 1_000, data_limit_bytes: GB });
    expect(await eventTypesOf(h, esim.id, 3)).toEqual(['esim.released', 'esim.installed', 'esim.activated']);
    const [, installed, activated] = h.eventsOf(esim.id);
    expect(installed?.data).toMatchObject({ previous_state: 'released', object: { state: 'installed' } });
    expect(activated?.data).toMatchObject({ previous_state: 'installed', object: { state: 'active' } });
  });

  it('activates an installed eSIM without a second install, by ICCID', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    await h.patch(caller, esim.id, 'installed');
    const res = await h.usage(caller, esim.iccid, 1);
    expect(res.body.state).toBe('active');
    expect(await eventTypesOf(h, esim.id, 3)).toEqual(['esim.released', 'esim.installed', 'esim.activated']);
  });

  it('fires 50, 80 and 100 percent once each, in order, clamps at the limit and expires', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    expect((await h.usage(caller, esim.id, 0.4 * GB)).body.data_used_bytes).toBe(0.4 * GB);
    expect((await h.usage(caller, esim.id, 0.1 * GB)).body.data_used_bytes).toBe(0.5 * GB);
    expect((await h.usage(caller, esim.id, 0.05 * GB)).status).toBe(200);
    const last = await h.usage(caller, esim.id, 5 * GB);
    expect(last.body).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted', data_used_bytes: GB, data_limit_bytes: GB });

    const types = await eventTypesOf(h, esim.id, 7);
    expect(types).toEqual([
      'esim.released',
      'esim.installed',
      'esim.activated',
      'esim.usage.threshold',
      'esim.usage.threshold',
      'esim.usage.threshold',
      'esim.expired',
    ]);
    const thresholds = h.eventsOf(esim.id).filter((e) => e.type === 'esim.usage.threshold');
    expect(thresholds.map((e) => e.data)).toEqual([
      expect.objectContaining({ threshold_percent: 50, data_used_bytes: 0.5 * GB, data_limit_bytes: GB }),
      expect.objectContaining({ threshold_percent: 80, data_used_bytes: GB, data_limit_bytes: GB }),
      expect.objectContaining({ threshold_percent: 100, data_used_bytes: GB, data_limit_bytes: GB }),
    ]);
    const expired = h.eventsOf(esim.id).at(-1);
    expect(expired?.data).toEqual({ object: last.body, previous_state: 'active' });
  });

  it('has no limit and no thresholds on an unlimited bundle', async () => {
    const esim = await buyEsim(h, caller, 'esim_UL_7D_US');
    const res = await h.usage(caller, esim.id, 500 * GB);
    expect(res.body).toMatchObject({ state: 'active', data_used_bytes: 500 * GB, data_limit_bytes: null });
    const marker = await buyEsim(h, caller);
    await eventTypesOf(h, marker.id, 1);
    expect(h.eventsOf(esim.id).map((e) => e.type)).toEqual(['esim.released', 'esim.installed', 'esim.activated']);
  });

  it('refuses usage on a suspended or expired eSIM with invalid_parameter on esim', async () => {
    for (const path of [['installed', 'active', 'suspended'], ['expired']]) {
      const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
      for (const state of path) await h.patch(caller, esim.id, state);
      const res = await h.usage(caller, esim.id, 1);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'esim' });
      expect((await h.get(caller, `/v1/esim/${esim.id}`)).body.data_used_bytes).toBe(0);
    }
  });

  it('answers 404 on esim for an unknown eSIM', async () => {
    const res = await h.usage(caller, '8988299000000000000', 1);
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'resource_not_found', param: 'esim' });
  });

  it.each([
    [{}, 'missing_parameter'],
    [{ bytes: 0 }, 'invalid_parameter'],
    [{ bytes: -5 }, 'invalid_parameter'],
    [{ bytes: 1.5 }, 'invalid_parameter'],
    [{ bytes: '10' }, 'invalid_parameter'],
  ])('refuses the body %o on bytes', async (body, code) => {
    const esim = await buyEsim(h, caller);
    const res = await request(h.app).post(`/internal/esims/${esim.id}/usage`).set(headersFor(caller)).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code, param: 'bytes' });
  });

  it('applies concurrent usage exactly, firing each threshold once', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    await h.usage(caller, esim.id, 1);
    const results = await Promise.all(Array.from({ length: 10 }, () => h.usage(caller, esim.id, 0.09 * GB)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    expect(final.data_used_bytes).toBe(0.9 * GB + 1);
    const types = await eventTypesOf(h, esim.id, 5);
    expect(types.filter((t) => t === 'esim.usage.threshold')).toHaveLength(2);
  });

  it('expires an eSIM past its validity instead of using it, before the sweeper comes by', async () => {
    const esim = await buyEsim(h, caller, 'esim_1GB_7D_US');
    await h.usage(caller, esim.id, 1);
    const eightDaysOn = () => new Date(Date.now() + 8 * 86_400_000);
    await expect(recordUsage({ knex: h.db.knex, now: eightDaysOn }, caller, esim.id, 1_000, NO_CLAIM)).rejects.toMatchObject({
      code: 'invalid_parameter',
      param: 'esim',
    });
    const after = (await h.get(caller, `/v1/esim/${esim.id}`)).body as Esim;
    expect(after).toMatchObject({ state: 'expired', data_used_bytes: 1 });
    expect(await eventTypesOf(h, esim.id, 4)).toEqual(['esim.released', 'esim.installed', 'esim.activated', 'esim.expired']);
  });
});
