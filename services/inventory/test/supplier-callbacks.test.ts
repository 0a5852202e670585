import type { Esim } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLiveInventory, type LiveHarness } from './live-vendors.ts';
import { eventually, operatorHeaders } from './support.ts';

/**
 * A vendor's callback without the U-turn (record 0262): catalogue, which holds the vendor's secret,
 * verifies it and puts its reports on the bus; inventory stores them from there and applies them.
 * Inventory has no callback route any more, and asks catalogue nothing for a callback.
 */
describe('a supplier callback goes to catalogue, and its reports to inventory on the bus', () => {
  let h: LiveHarness;
  beforeAll(async () => {
    h = await startLiveInventory('esim-go');
  });
  afterAll(async () => {
    await h?.close();
  });

  const inboxOf = (iccid: string) => h.db.knex('inventory.supplier_reports').where({ iccid }).select<{ vendor: string }[]>('vendor');

  it('is answered by catalogue; inventory stores and applies its reports without calling catalogue', async () => {
    const caller = await h.account();
    const [esim] = (await h.buy(caller, 1)).esims as [Esim];
    expect(await inboxOf(esim.iccid)).toEqual([]);
    const answered = h.hookAnswers.length;
    const asked = h.catalogueRequests.length;

    // The handset attaches: eSIM Go calls back (FirstAttachment, signed); the hook passes it to catalogue.
    await h.fake.control.attach(esim.iccid);
    expect(h.hookAnswers.slice(answered)).toEqual([200]);

    // inventory got the report from the bus, stored it in its inbox and applied it.
    await eventually(async () => expect(await inboxOf(esim.iccid)).toMatchObject([{ vendor: 'esim-go' }]), 10_000);
    await eventually(() => expect(h.eventsOf(esim.id)).toEqual(['esim.released', 'esim.installed']), 10_000);
    // ...and asked catalogue nothing for it (reconciliation is off here; no other work was due).
    expect(h.catalogueRequests.slice(asked)).toEqual([]);
  });

  it('inventory takes no callback itself: its old route is an unknown route', async () => {
    const res = await request(h.app).post('/internal/supplier-callbacks/esim-go').set(operatorHeaders()).send({ body_base64: '', headers: {} });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('no_such_route');
  });
});
