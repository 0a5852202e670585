import { newId } from '@connectivity/platform';
import type { SupplierRelease } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  headersFor,
  LIVE_BUNDLE,
  newCaller,
  operatorHeaders,
  resetSupplier,
  startInventory,
  supplierBundleState,
  type Harness,
} from './support.ts';
import { failNextOrderWrite, settleAbandonedIntents } from './unrecorded-purchase.ts';

let h: Harness;
beforeAll(async () => {
  h = await startInventory();
});
afterAll(async () => {
  await h?.close();
});

const operator = () => operatorHeaders();
const list = (query: Record<string, string | number>) => request(h.app).get('/internal/supplier-releases').query(query).set(operator());
const retry = (id: string) => request(h.app).post(`/internal/supplier-releases/${id}/retry`).set(operator());
const releaseOf = async (id: string) => ((await list({ limit: 100 })).body.data as SupplierRelease[]).find((r) => r.id === id);

function expectError(res: request.Response, status: number, code: string, param?: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error).toMatchObject({ code, ...(param !== undefined && { param }) });
}

/**
 * Writes a pending release abandoned as the worker would, but only between two of its attempts: a
 * row an attempt holds has its lease (a minute ahead) as `next_attempt_at`, and that attempt, ending
 * after the supplier is back, would write `released` over it. Here a retry waits at most 200 ms.
 */
async function abandonBetweenAttempts(id: string, lastError: string): Promise<void> {
  await eventually(async () => {
    const now = Date.now();
    const written = await h.db
      .knex('inventory.supplier_releases')
      .where({ order_reference: id, status: 'pending' })
      .andWhere('next_attempt_at', '<', now + 30_000)
      .update({ status: 'abandoned', finished_at: now, last_error: lastError });
    expect(written).toBe(1);
  });
}

/**
 * A release the worker gave up on, made for real: a live order the vendor made whose write failed
 * and that nobody retried is handed by the purchase-intent worker to the release work; the supplier
 * is down while the worker tries, and the release is then abandoned as the worker abandons one the
 * supplier says it cannot end (eSIM Go can always end a bundle, so that refusal is written as the
 * worker writes it).
 */
async function abandonedRelease(): Promise<SupplierRelease> {
  const caller = newCaller('live');
  await h.fund(caller.accountId, { verified: true, live_balance_cents: 10_000_000 });
  await failNextOrderWrite(h.db, caller.accountId);
  expect((await h.order(caller, { bundle: LIVE_BUNDLE })).status).toBe(500);
  // The release's first call waits on a slow supplier, and finds it down when its wait ends.
  await h.supplier.control.fault({ kind: 'slow', delayMs: 300 });
  try {
    expect(await settleAbandonedIntents(h.db, h.catalogueUrl, caller.accountId)).toBe(1);
    await h.supplier.control.fault({ kind: 'status', status: 503 });
    const pending = await eventually(async () => {
      const [release] = ((await list({ status: 'pending', limit: 100 })).body.data as SupplierRelease[]).filter((r) => r.account_id === caller.accountId);
      expect(release?.attempts).toBeGreaterThanOrEqual(1);
      return release as SupplierRelease;
    });
    await abandonBetweenAttempts(pending.id, 'the supplier cannot end these profiles');
    return (await releaseOf(pending.id)) as SupplierRelease;
  } finally {
    await resetSupplier(h);
  }
}

describe('the operator routes over supplier releases', () => {
  it('lists an abandoned release, and a retry takes it back to pending and then released', async () => {
    const abandoned = await abandonedRelease();
    expect(abandoned).toMatchObject({ object: 'supplier_release', status: 'abandoned', reason: 'order_not_recorded', next_attempt_at: null });
    expect(abandoned.id).toMatch(/^ord_/);
    expect(abandoned.last_error).toBeTruthy();
    expect(abandoned.finished_at).toEqual(expect.any(Number));
    const iccid = abandoned.iccids[0] ?? '';
    expect(supplierBundleState(h, iccid)).not.toBe('revoked');
    expect(((await list({ status: 'pending', limit: 100 })).body.data as SupplierRelease[]).map((r) => r.id)).not.toContain(abandoned.id);

    const res = await retry(abandoned.id);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ id: abandoned.id, status: 'pending', attempts: 0, finished_at: null });
    expect(res.body.next_attempt_at).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    await eventually(async () => {
      expect((await releaseOf(abandoned.id))?.status).toBe('released');
      expect(supplierBundleState(h, iccid)).toBe('revoked');
    });
    // Released: nothing is left to retry.
    expectError(await retry(abandoned.id), 409, 'invalid_state_transition', 'release_id');
  });

  it('pages newest first with no duplicate or gap, the cursor bound to the status filter', async () => {
    // Written abandoned in one statement, so the running worker never claims them mid-test.
    const at = Date.now();
    const ids = Array.from({ length: 5 }, () => newId('order'));
    await h.db.knex('inventory.supplier_releases').insert(
      ids.map((id, i) => ({
        order_reference: id,
        account_id: newId('account'),
        iccids: [],
        reason: 'test',
        status: 'abandoned',
        next_attempt_at: at + i,
        created_at: at + i,
        finished_at: at + i,
      })),
    );
    const all = ((await list({ status: 'abandoned', limit: 100 })).body.data as SupplierRelease[]).map((r) => r.id);
    expect(all.slice(0, 5)).toEqual([...ids].reverse());
    const paged: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await list({ status: 'abandoned', limit: 2, ...(cursor && { cursor }) });
      expect(page.status).toBe(200);
      paged.push(...(page.body.data as SupplierRelease[]).map((r) => r.id));
      if (!page.body.has_more) break;
      cursor = page.body.next_cursor as string;
    }
    expect(paged).toEqual(all);
    const first = await list({ status: 'abandoned', limit: 1 });
    expectError(await list({ status: 'released', limit: 1, cursor: first.body.next_cursor as string }), 400, 'invalid_parameter', 'cursor');
  });

  it('refuses bad input with the error object', async () => {
    expectError(await list({ status: 'lost' }), 400, 'invalid_parameter', 'status');
    expectError(await list({ limit: 0 }), 400, 'invalid_parameter', 'limit');
    expectError(await retry('ord_nope'), 400, 'invalid_parameter', 'releaseId');
    expectError(await retry(newId('order')), 404, 'resource_not_found', 'release_id');
    // Without the internal token the service answers nothing but a 401.
    expectError(await request(h.app).get('/internal/supplier-releases'), 401, 'key_invalid');
    // A call made for an API key (as a steered public request would be) finds no such route.
    expectError(
      await request(h.app)
        .get('/internal/supplier-releases')
        .set(headersFor(newCaller('test'))),
      404,
      'no_such_route',
    );
    expectError(
      await request(h.app)
        .post(`/internal/supplier-releases/${newId('order')}/retry`)
        .set(headersFor(newCaller('test'))),
      404,
      'no_such_route',
    );
  });
});
