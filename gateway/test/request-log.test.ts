import type { RequestLog } from '@connectivity/contracts';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKeyById } from '../src/use-cases/revoke-key.ts';
import { expectError } from './support/common-route-tests.ts';
import { bearer, idem, startHarness, type Harness } from './support/harness.ts';

/**
 * The per-account request log: recorded at the edge with an in-memory push, written by the
 * batch flush, bounded per account and environment, and read back with GET /v1/request_logs.
 * The flush interval is long here, so what is in the database came from an explicit flush.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000', REQUEST_LOG_FLUSH_MS: '600000', REQUEST_LOG_MAX_PER_ACCOUNT: '5' });
});
afterAll(async () => {
  await h?.close();
});

type List = { data: RequestLog[]; has_more: boolean; next_cursor: string | null };
const logs = async (key: string, query = '') => {
  const res = await request(h.app).get(`/v1/request_logs${query}`).set(bearer(key));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as List;
};
// Entries are ordered by arrival in milliseconds; requests a test orders are kept a millisecond apart.
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));
const rowsOf = (accountId: string) => h.db.knex('gateway.request_logs').where({ account_id: accountId });

describe('the request log', () => {
  it('records answered requests, errors included, once the batch is flushed', async () => {
    const a = await h.account();
    const ok = await request(h.app).get('/v1/esim/esim_abc').set(bearer(a.test));
    await tick();
    const bad = await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', idem()).send({ bundle: 'x', quantity: 'two' });
    await tick();
    const conflict = await request(h.app).patch('/v1/esim/esim_abc').set(bearer(a.test)).set('Idempotency-Key', idem()).send({ state: 'active' });
    await tick();
    const missing = await request(h.app).get('/v1/nothing/here').set(bearer(a.test));
    expectError(bad, 400, 'invalid_parameter', 'quantity');
    expectError(missing, 404, 'no_such_route');
    expect(conflict.status).toBe(409);

    // Nothing is written by the requests themselves: the hot path only buffers.
    expect(await rowsOf(a.accountId)).toHaveLength(0);
    await h.edge.requestLog.flush();

    const page = await logs(a.test);
    expect(page.data.map((e) => [e.id, e.method, e.path, e.route, e.status])).toEqual([
      [missing.get('request-id'), 'GET', '/v1/nothing/here', null, 404],
      [conflict.get('request-id'), 'PATCH', '/v1/esim/esim_abc', '/v1/esim/{id}', 409],
      [bad.get('request-id'), 'POST', '/v1/esim', '/v1/esim', 400],
      [ok.get('request-id'), 'GET', '/v1/esim/esim_abc', '/v1/esim/{id}', 200],
    ]);
    for (const entry of page.data) {
      expect(entry).toMatchObject({ object: 'request_log', api_key: a.testKeyId, environment: 'test' });
      expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Math.abs(entry.created_at - Date.now() / 1000)).toBeLessThan(60);
    }
  });

  it('keeps no body, query string, header or secret', async () => {
    const a = await h.account();
    await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', 'idem-marker-key-123').send({ bundle: 'body-marker-bundle' });
    await request(h.app).get('/v1/esim?cursor=query-marker').set(bearer(a.test));
    await h.edge.requestLog.flush();
    const stored = JSON.stringify(await rowsOf(a.accountId));
    expect(stored).toContain('/v1/esim');
    for (const secret of [a.test, 'body-marker-bundle', 'query-marker', 'idem-marker-key-123', 'Bearer']) expect(stored).not.toContain(secret);
  });

  it('leaves out requests refused for their key, and reads of the log itself', async () => {
    const a = await h.account();
    const revoked = await h.account();
    await revokeKeyById(h.db.knex, revoked.testKeyId);
    h.edge.keysChanged({ keyIds: [revoked.testKeyId] });
    expectError(await request(h.app).get('/v1/version').set(bearer(revoked.test)), 401, 'key_revoked');
    expectError(
      await request(h.app)
        .get('/v1/version')
        .set(bearer(`${a.test}x`)),
      401,
      'key_invalid',
    );
    expectError(await request(h.app).get('/v1/version'), 401, 'key_missing');
    await request(h.app).get('/v1/version').set(bearer(a.test));
    await logs(a.test);
    await h.edge.requestLog.flush();
    const page = await logs(a.test);
    expect(page.data.map((e) => `${e.status} ${e.path}`)).toEqual(['200 /v1/version']);
    expect(await rowsOf(revoked.accountId)).toHaveLength(0);
  });

  it('keeps each account and environment apart', async () => {
    const a = await h.account();
    const b = await h.account();
    await request(h.app).get('/v1/version').set(bearer(a.test));
    await request(h.app).get('/v1/api_keys').set(bearer(a.live));
    await request(h.app).get('/v1/event_types').set(bearer(b.test));
    await h.edge.requestLog.flush();
    expect((await logs(a.test)).data.map((e) => e.path)).toEqual(['/v1/version']);
    expect((await logs(a.live)).data.map((e) => [e.path, e.environment, e.api_key])).toEqual([['/v1/api_keys', 'live', a.liveKeyId]]);
    expect((await logs(b.test)).data.map((e) => e.path)).toEqual(['/v1/event_types']);
    // A cursor of one account's log is refused on another's.
    await tick();
    await request(h.app).get('/v1/version').set(bearer(a.test));
    await h.edge.requestLog.flush();
    const first = await logs(a.test, '?limit=1');
    expectError(
      await request(h.app)
        .get(`/v1/request_logs?cursor=${first.next_cursor ?? ''}`)
        .set(bearer(b.test)),
      400,
      'invalid_parameter',
      'cursor',
    );
  });

  it('keeps the newest requests of an account and environment, up to the bound, and pages through them', async () => {
    const a = await h.account();
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) {
      ids.push((await request(h.app).get(`/v1/esim/esim_${i}`).set(bearer(a.test))).get('request-id') ?? '');
      await tick();
    }
    await request(h.app).get('/v1/version').set(bearer(a.live));
    await h.edge.requestLog.flush();
    expect(await rowsOf(a.accountId).andWhere({ environment: 'test' })).toHaveLength(5);
    expect(await rowsOf(a.accountId).andWhere({ environment: 'live' })).toHaveLength(1);

    const first = await logs(a.test, '?limit=3');
    expect(first.has_more).toBe(true);
    const second = await logs(a.test, `?limit=3&cursor=${first.next_cursor ?? ''}`);
    expect(second.has_more).toBe(false);
    expect([...first.data, ...second.data].map((e) => e.id)).toEqual(ids.slice(3).reverse());
  });

  it('writes only what it keeps: a flush of more requests of a scope than the bound inserts the newest up to the bound', async () => {
    const a = await h.account();
    const inserted: number[] = [];
    const count = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^insert into "gateway"."request_logs"/.test(query.sql) && query.bindings?.includes(a.accountId))
        inserted.push(query.bindings.filter((value) => value === a.accountId).length);
    };
    h.db.knex.on('query', count);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 12; i += 1) {
        ids.push((await request(h.app).get(`/v1/esim/esim_${i}`).set(bearer(a.test))).get('request-id') ?? '');
        await tick();
      }
      await h.edge.requestLog.flush();
      expect(inserted.reduce((sum, rows) => sum + rows, 0)).toBe(5);
      expect((await logs(a.test)).data.map((e) => e.id)).toEqual(ids.slice(7).reverse());
    } finally {
      h.db.knex.off('query', count);
    }
  });

  it('never lists, and purges, requests older than the retention', async () => {
    const a = await h.account();
    await h.db.knex('gateway.request_logs').insert({
      request_id: 'req_01aaaaaaaaaaaaaaaaaaaaaaaa',
      account_id: a.accountId,
      environment: 'test',
      key_id: a.testKeyId,
      method: 'GET',
      path: '/v1/version',
      route: '/v1/version',
      status: 200,
      duration_ms: 1,
      created_at: new Date(Date.now() - 25 * 3_600_000),
    });
    expect((await logs(a.test)).data).toEqual([]);
    await h.edge.requestLog.purge();
    expect(await rowsOf(a.accountId)).toHaveLength(0);
  });

  it('keeps a batch the database refused, and writes it on the next flush', async () => {
    const a = await h.account();
    const answered = await request(h.app).get('/v1/version').set(bearer(a.test));
    // The table is away for a moment (as in a failover): the flush fails and nothing is lost.
    await h.db.knex.raw('alter table gateway.request_logs rename to request_logs_away');
    try {
      await expect(h.edge.requestLog.flush()).rejects.toThrow();
    } finally {
      await h.db.knex.raw('alter table gateway.request_logs_away rename to request_logs');
    }
    await h.edge.requestLog.flush();
    expect((await logs(a.test)).data.map((e) => e.id)).toEqual([answered.get('request-id')]);
  });

  it('needs the keys:read scope', async () => {
    const a = await h.account();
    await h.db
      .knex('gateway.api_keys')
      .where({ id: a.testKeyId })
      .update({ scopes: ['esim:read'] });
    h.edge.keysChanged({ keyIds: [a.testKeyId] });
    expectError(await request(h.app).get('/v1/request_logs').set(bearer(a.test)), 403, 'key_out_of_scope');
  });
});

describe('the request log flush', () => {
  let fast: Harness;
  beforeAll(async () => {
    fast = await startHarness({ REQUEST_LOG_FLUSH_MS: '100', RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => {
    await fast?.close();
  });

  it('writes a request within about the flush interval, with no call but the request', async () => {
    const a = await fast.account();
    const answered = await request(fast.app).get('/v1/version').set(bearer(a.test));
    const deadline = Date.now() + 5_000;
    let data: RequestLog[] = [];
    while (Date.now() < deadline) {
      data = ((await request(fast.app).get('/v1/request_logs').set(bearer(a.test))).body as List).data;
      if (data.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(data.map((e) => e.id)).toEqual([answered.get('request-id')]);
  });

  it('under a stream of requests writes about once an interval, not once per few requests (record 0266)', async () => {
    const a = await fast.account();
    const inserts: number[] = [];
    const count = (query: { sql: string; bindings?: unknown[] }) => {
      if (/^insert into "gateway"."request_logs"/.test(query.sql) && query.bindings?.includes(a.accountId)) inserts.push(Date.now());
    };
    fast.db.knex.on('query', count);
    const started = Date.now();
    let answered = 0;
    try {
      // Four clients at once for a second: a flush always finds a few new entries waiting.
      const client = async () => {
        while (Date.now() - started < 1_000) {
          expect((await request(fast.app).get('/v1/version').set(bearer(a.test))).status).toBe(200);
          answered += 1;
        }
      };
      await Promise.all([client(), client(), client(), client()]);
      await fast.edge.requestLog.flush();
    } finally {
      fast.db.knex.off('query', count);
    }
    const elapsed = Date.now() - started;
    expect(answered).toBeGreaterThan(50);
    // A 100 ms interval over the run, plus the final flush and a margin for a slow timer.
    expect(inserts.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 3);
    const listed = ((await request(fast.app).get('/v1/request_logs?limit=100').set(bearer(a.test))).body as List).data;
    expect(listed.length).toBe(Math.min(answered, 100));
  });
});
