import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAiraloFake, type AiraloFake, type AiraloFakeOptions, type AiraloRefund, type AiraloState } from '../src/index.ts';
import { airaloClient, type Listed, type One } from './airalo-client.ts';
import { expectFaithfulExchanges } from './support.ts';

let fake: AiraloFake;
const cleanups: (() => void)[] = [];
const start = (options: AiraloFakeOptions = {}) => startAiraloFake({ checkResponses: true, ...options });

beforeEach(async () => {
  fake = await start();
});

afterEach(async () => {
  expectFaithfulExchanges(fake.control);
  await fake.close();
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const { token, call, order, balance } = airaloClient(() => fake);

/** change-7days-1gb costs the partner 1.8 USD. */
const NET_PRICE = 1.8;

async function requestRefund(accessToken: string, iccids: string[]): Promise<string> {
  const refund = await call<One<{ refund_id: string; created_at: string }>>('/refund', {
    method: 'POST',
    token: accessToken,
    json: { iccids, reason: 'CHANGE_OF_PLAN' },
  });
  expect(refund).toMatchObject({ status: 202, body: { data: { refund_id: expect.stringMatching(/^\d+$/) }, meta: { message: 'success' } } });
  expect(refund.body.data.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d$/);
  return refund.body.data.refund_id;
}

/** What a partner can read of a refund: the order's status, by id and through the list's filter. */
async function orderStatus(accessToken: string, orderId: number): Promise<string> {
  return (await call<One<{ status: { slug: string } }>>(`/orders/${orderId}?include=status`, { token: accessToken })).body.data.status.slug;
}
async function ordersWithStatus(accessToken: string, status: string): Promise<number[]> {
  const listed = await call<Listed<{ id: number; status: { slug: string } }>>(`/orders?filter[order_status]=${status}&include=status`, { token: accessToken });
  expect(listed.body.data.every((o) => o.status.slug === status)).toBe(true);
  return listed.body.data.map((o) => o.id);
}

const decide = (refundId: string, decision: 'approve' | 'reject') => fetch(`${fake.origin}/_fake/refunds/${refundId}/${decision}`, { method: 'POST' });

describe('Airalo fake: refunds are reviewed by a person', () => {
  it('keeps a request pending, crediting nothing, until the review approves it; then the order reads refunded', async () => {
    const accessToken = await token();
    const before = await balance(accessToken);
    const placed = await order(accessToken, 'change-7days-1gb', 1, 'ord_refund');
    const [iccid] = placed.sims.map((s) => s.iccid);
    const refundId = await requestRefund(accessToken, [iccid!]);

    expect(await balance(accessToken)).toBeCloseTo(before - NET_PRICE, 2);
    expect(await orderStatus(accessToken, placed.id)).toBe('completed');
    expect(await ordersWithStatus(accessToken, 'refunded')).toEqual([]);
    const pending = { refund_id: refundId, status: 'pending', iccids: [iccid], reason: 'CHANGE_OF_PLAN' };
    expect(fake.control.refunds()).toEqual([expect.objectContaining(pending)]);
    expect(await (await fetch(`${fake.origin}/_fake/refunds`)).json()).toEqual([expect.objectContaining(pending)]);

    const approved = await decide(refundId, 'approve');
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ refund_id: refundId, status: 'approved', refunded_iccids: [iccid], credited: NET_PRICE });
    expect(await balance(accessToken)).toBeCloseTo(before, 2);
    expect(await orderStatus(accessToken, placed.id)).toBe('refunded');
    expect(await ordersWithStatus(accessToken, 'refunded')).toEqual([placed.id]);
    expect(fake.control.esim(iccid!)).toMatchObject({ refund_id: refundId });

    const again = await decide(refundId, 'approve');
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: `refund request ${refundId} is already approved` });
    expect(await balance(accessToken)).toBeCloseTo(before, 2);
  });

  it('credits only the eSIMs still unused and not yet refunded when approved: the order reads partially refunded', async () => {
    const accessToken = await token();
    const placed = await order(accessToken, 'change-7days-1gb', 3, 'ord_partial');
    const [first, used, third] = placed.sims.map((s) => s.iccid);
    const firstRefund = await requestRefund(accessToken, [first!, used!]);
    // Used after the request and before the review: the review sees it in use.
    await fake.control.attach(used!);
    const before = await balance(accessToken);
    expect(await fake.control.approveRefund(firstRefund)).toMatchObject({ status: 'approved', refunded_iccids: [first], credited: NET_PRICE });
    expect(await balance(accessToken)).toBeCloseTo(before + NET_PRICE, 2);
    expect(await orderStatus(accessToken, placed.id)).toBe('partially_refunded');
    expect(await ordersWithStatus(accessToken, 'partially_refunded')).toEqual([placed.id]);

    const secondRefund = await requestRefund(accessToken, [first!, third!]);
    expect(await fake.control.approveRefund(secondRefund)).toMatchObject({ refunded_iccids: [third], credited: NET_PRICE });
    expect(await balance(accessToken)).toBeCloseTo(before + 2 * NET_PRICE, 2);
    expect(await orderStatus(accessToken, placed.id)).toBe('partially_refunded');
  });

  it('rejects a request: nothing credited, the order keeps its status, and no request is decided twice or unknown', async () => {
    const accessToken = await token();
    const placed = await order(accessToken, 'change-7days-1gb', 1);
    const refundId = await requestRefund(accessToken, [placed.sims[0]!.iccid]);
    const before = await balance(accessToken);
    expect(await fake.control.rejectRefund(refundId)).toMatchObject({ refund_id: refundId, status: 'rejected', decided_at: expect.any(String) });
    expect(await balance(accessToken)).toBe(before);
    expect(await orderStatus(accessToken, placed.id)).toBe('completed');
    expect(fake.control.esim(placed.sims[0]!.iccid)).not.toHaveProperty('refund_id');
    for (const decision of ['approve', 'reject'] as const) {
      const refused = await decide(refundId, decision);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: `refund request ${refundId} is already rejected` });
    }
    expect((await decide('999', 'approve')).status).toBe(400);
    await expect(fake.control.rejectRefund('999')).rejects.toThrow('no refund request 999');
    expect(fake.control.refunds().map((r) => r.status)).toEqual(['rejected']);
  });

  it('refuses foreign ICCIDs, unknown reasons, OTHERS without notes and more than 5 ICCIDs, and records none of them', async () => {
    const accessToken = await token();
    const [iccid] = (await order(accessToken, 'change-7days-1gb', 1)).sims.map((s) => s.iccid);
    const refund = (json: unknown) =>
      call<{ data: Record<string, string> | []; meta: { message: string } }>('/refund', { method: 'POST', token: accessToken, json });
    expect(await refund({ iccids: ['8900000000000000001'], reason: 'OTHERS', notes: 'x' })).toMatchObject({
      status: 422,
      body: { data: [], meta: { message: 'The following ICCIDs do not belong to your company: 8900000000000000001' } },
    });
    const reason = await refund({ iccids: [iccid], reason: 'BORED' });
    expect(reason.status).toBe(422);
    expect((reason.body.data as Record<string, string>).reason).toContain('INSTALLATION_FAILURE');
    expect(await refund({ iccids: [iccid], reason: 'OTHERS' })).toMatchObject({ status: 422, body: { data: { notes: expect.any(String) } } });
    expect(await refund({ iccids: [iccid, iccid, iccid, iccid, iccid, iccid], reason: 'CHANGE_OF_PLAN' })).toMatchObject({
      status: 422,
      body: { data: { iccids: 'The iccids may not have more than 5 items.' } },
    });
    expect(fake.control.refunds()).toEqual([]);
    // Five requests a minute per IP address: this one is the sixth.
    await refund({ iccids: [iccid], reason: 'CHANGE_OF_PLAN' });
    expect((await refund({ iccids: [iccid], reason: 'CHANGE_OF_PLAN' })).status).toBe(429);
    expect(fake.control.refunds()).toHaveLength(1);
    // The document allows at most 5 ICCIDs too: the strict recorder names that request, and only it.
    expect(fake.control.violations().requests.map((v) => v.problems)).toEqual([['request body/iccids: must NOT have more than 5 items']]);
    await fake.control.resetObservations();
  });

  it("approves at once with refundReview: 'approve'", async () => {
    await fake.close();
    fake = await start({ refundReview: 'approve' });
    const accessToken = await token();
    const before = await balance(accessToken);
    const placed = await order(accessToken, 'change-7days-1gb', 1);
    const refundId = await requestRefund(accessToken, [placed.sims[0]!.iccid]);
    expect(await balance(accessToken)).toBeCloseTo(before, 2);
    expect(await orderStatus(accessToken, placed.id)).toBe('refunded');
    expect(fake.control.refunds()).toEqual([expect.objectContaining({ refund_id: refundId, status: 'approved', credited: NET_PRICE })]);
  });

  it('remembers requests and their review across restarts on a state file, and reads an older file as approved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'airalo-refunds-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const options = { stateFile: join(dir, 'airalo.json'), clientId: 'fake-partner', clientSecret: 'fake-secret-0123456789' };
    await fake.close();
    fake = await start(options);
    const placed = await order(await token(), 'change-7days-1gb', 1);
    const refundId = await requestRefund(await token(), [placed.sims[0]!.iccid]);
    await fake.close();
    fake = await start(options);
    expect(fake.control.refunds()).toEqual([expect.objectContaining({ refund_id: refundId, status: 'pending' })]);
    await fake.control.approveRefund(refundId);
    await fake.close();

    // A file written before refunds were reviewed: its refunds had been approved when asked for.
    const older = JSON.parse(readFileSync(options.stateFile, 'utf8')) as AiraloState;
    for (const refund of older.refunds as Partial<AiraloRefund>[]) delete refund.status;
    writeFileSync(options.stateFile, JSON.stringify(older));
    fake = await start(options);
    expect(fake.control.refunds().map((r) => r.status)).toEqual(['approved']);
    expect(await orderStatus(await token(), placed.id)).toBe('refunded');
  });
});
