import { SUPPLIER_VENDORS, type Esim } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveInventory, type LiveHarness } from './live-vendors.ts';
import { eventually, operatorHeaders } from './support.ts';

/**
 * The live life cycle, driven by each vendor's fake through catalogue's adapter: the handset
 * installs, attaches and uses one eSIM to depletion, another's validity ends; every event comes
 * once, with callbacks on (and reconciliation beside them) and with callbacks dropped
 * (reconciliation alone).
 */
const FULL_LIFE = [
  'esim.released',
  'esim.installed',
  'esim.activated',
  'esim.usage.threshold:50',
  'esim.usage.threshold:80',
  'esim.usage.threshold:100',
  'esim.expired',
];

async function settled(h: LiveHarness, esimId: string, expected: string[]): Promise<void> {
  await eventually(() => expect(h.eventsOf(esimId)).toEqual(expected), 20_000);
  // Anything emitted twice would come within a few passes.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect(h.eventsOf(esimId)).toEqual(expected);
}

const esimOf = async (h: LiveHarness, accountId: string, id: string) =>
  (await h.db.knex('inventory.esims').where({ id, account_id: accountId }).first()) as Esim & { data_used_bytes: string | number };

describe.each(SUPPLIER_VENDORS)('the live life cycle from %s', (vendor) => {
  for (const callbacks of [true, false]) {
    describe(callbacks ? 'with callbacks' : 'with callbacks dropped (reconciliation alone)', () => {
      let h: LiveHarness;
      beforeAll(async () => {
        h = await startLiveInventory(vendor, { SUPPLIER_RECONCILE_INTERVAL_MS: '300', SUPPLIER_RECONCILE_BATCH: '5' });
        h.fake.control.setCallbacks(callbacks);
      });
      afterAll(async () => {
        await h?.close();
      });

      it('installed, activated, 50/80/100 and expired for a depleted eSIM; expired for one whose validity ended; each once', async () => {
        const caller = await h.account();
        const order = await h.buy(caller, 2);
        const [used, idle] = order.esims as [Esim, Esim];
        await h.fake.control.install(used.iccid);
        await h.fake.control.attach(used.iccid);
        await h.fake.control.useData(used.iccid, 600_000_000);
        await h.fake.control.deplete(used.iccid);
        await h.fake.control.expire(idle.iccid);

        await settled(h, used.id, FULL_LIFE);
        expect(await esimOf(h, caller.accountId, used.id)).toMatchObject({ state: 'expired', expired_reason: 'data_exhausted' });
        await settled(h, idle.id, ['esim.released', 'esim.expired']);
        expect(await esimOf(h, caller.accountId, idle.id)).toMatchObject({ state: 'expired', expired_reason: 'validity_ended' });
        if (callbacks && vendor === 'esim-go') {
          // eSIM Go calls back on the attach and the usage: they were taken, verified and stored.
          expect(h.hookAnswers.length).toBeGreaterThan(0);
          expect(h.hookAnswers.every((status) => status === 200)).toBe(true);
        }
        if (!callbacks) expect(h.hookAnswers).toEqual([]);
      });
    });
  }
});

describe('a callback at catalogue (record 0262)', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('esim-go');
  });
  afterAll(async () => {
    await h?.close();
  });

  const post = (vendor: string, body: string, headers: Record<string, string>) =>
    request(h.catalogueApp)
      .post(`/internal/supplier-callbacks/${vendor}`)
      .set(operatorHeaders())
      .send({ body_base64: Buffer.from(body).toString('base64'), headers });
  const inboxSize = async () => Number(((await h.db.knex('inventory.supplier_reports').count({ n: '*' }).first()) as { n: string | number }).n);

  it('with a bad or missing signature is 401 signature_invalid and stores nothing', async () => {
    const before = await inboxSize();
    const body = JSON.stringify({ alertType: 'Utilisation', iccid: '8944000000000000001' });
    const forged = await post('esim-go', body, { 'content-type': 'application/json', 'x-signature-sha256': 'ab'.repeat(32) });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toMatchObject({ code: 'signature_invalid' });
    expect((await post('esim-go', body, { 'content-type': 'application/json' })).status).toBe(401);
    expect(await inboxSize()).toBe(before);
  });

  it('for a vendor that is not the live supplier is 404, and no caller may reach the route', async () => {
    expect((await post('airalo', '{}', {})).status).toBe(404);
    const asCaller = await request(h.catalogueApp)
      .post('/internal/supplier-callbacks/esim-go')
      .set({ ...operatorHeaders(), 'x-account-id': 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz', 'x-environment': 'live' })
      .send({ body_base64: '', headers: {} });
    expect(asCaller.status).toBe(404);
    expect(asCaller.body.error.code).toBe('no_such_route');
  });
});
