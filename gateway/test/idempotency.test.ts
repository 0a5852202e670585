import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyOwner, requestFingerprint } from '@connectivity/platform';
import { gatewayIdempotency } from '../src/index.ts';
import { keyReservations, reserveIdempotencyKeys } from '../src/db/idempotency-repository.ts';
import { expectError, expectStandardHeaders } from './support/common-route-tests.ts';
import { bearer, freePort, idem, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '1000000' });
});
afterAll(async () => {
  await h?.close();
});

const order = (key: string, idempotencyKey: string, body: object = { bundle: 'esim_1GB_7D_GB' }) =>
  request(h.app).post('/v1/esim').set(bearer(key)).set('Idempotency-Key', idempotencyKey).send(body);

/** Whom the account's test key's Idempotency-Keys belong to (record 0200). */
const owner = (a: { accountId: string }) => idempotencyOwner(a.accountId, 'test');

const records = (keyId: string, idempotencyKey: string) => h.db.knex('gateway.idempotency_records').where({ key_id: keyId, idempotency_key: idempotencyKey });

describe('replay', () => {
  it('the same request with the same key returns the stored response with Idempotent-Replayed: true', async () => {
    const a = await h.account();
    const key = idem();
    const before = h.upstream.orders();
    const first = await order(a.test, key);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await order(a.test, key);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toMatch(/application\/json/);
    expectStandardHeaders(second);
    expect(second.headers['request-id']).not.toBe(first.headers['request-id']);
    expect(h.upstream.orders() - before).toBe(1);
  });

  it('a response the service answered with an error is stored and replayed too', async () => {
    const a = await h.account();
    const key = idem();
    const send = () => request(h.app).patch('/v1/esim/esim_1').set(bearer(a.test)).set('Idempotency-Key', key).send({ state: 'active' });
    const first = await send();
    expect(first.status).toBe(409);
    const second = await send();
    expect(second.status).toBe(409);
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    // The service ran once; the retry was answered from its record.
    expect(h.upstream.seen.filter((r) => r.method === 'PATCH' && r.headers['x-key-id'] === a.testKeyId)).toHaveLength(2);
    expect(h.upstream.handled('PATCH', '/v1/esim/esim_1')).toBe(1);
  });

  it('keys are scoped to the account and environment: another account, or the other environment, may use the same Idempotency-Key', async () => {
    const a = await h.account();
    const b = await h.account();
    const key = idem();
    const first = await order(a.test, key);
    const other = await order(b.test, key);
    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(other.body.id).not.toBe(first.body.id);
    const live = await order(a.live, key);
    expect(live.status).toBe(201);
    expect(live.headers['idempotent-replayed']).toBeUndefined();
    expect(live.body.id).not.toBe(first.body.id);
  });
});

describe('conflicts', () => {
  it('the same key with a different body, path or method: 409 idempotency_key_reused', async () => {
    const a = await h.account();
    const key = idem();
    expect((await order(a.test, key)).status).toBe(201);
    expectError(await order(a.test, key, { bundle: 'another' }), 409, 'idempotency_key_reused', 'Idempotency-Key');
    const otherPath = await request(h.app).post('/v1/events/replay').set(bearer(a.test)).set('Idempotency-Key', key).send({});
    expectError(otherPath, 409, 'idempotency_key_reused', 'Idempotency-Key');
  });

  it('a duplicate while the first is still running: 409 idempotency_key_reused, "in progress"', async () => {
    const a = await h.account();
    const key = idem();
    const release = h.upstream.hold();
    const replay = () => request(h.app).post('/v1/events/replay').set(bearer(a.test)).set('Idempotency-Key', key).send({});
    const first = replay().then((res) => res);
    // Wait until the first request holds the claim.
    await until(async () => (await records(owner(a), key)).length === 1);
    const duplicate = await replay();
    expectError(duplicate, 409, 'idempotency_key_reused', 'Idempotency-Key');
    expect(duplicate.body.error.message).toMatch(/in progress/);
    release();
    expect((await first).status).toBe(200);
    expect((await replay()).headers['idempotent-replayed']).toBe('true');
  });

  it('concurrent duplicates never cause two side effects (100 runs of 10 at once)', async () => {
    const a = await h.account();
    for (let run = 0; run < 100; run += 1) {
      const key = idem();
      const before = h.upstream.orders();
      const responses = await Promise.all(Array.from({ length: 10 }, () => order(a.test, key)));
      expect(h.upstream.orders() - before, `run ${run}`).toBe(1);
      const created = responses.filter((res) => res.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((res) => (res.body as { id: string }).id)).size).toBe(1);
      for (const res of responses) {
        if (res.status !== 201) expect(res.body.error.code).toBe('idempotency_key_reused');
      }
    }
  });
});

describe('reservations, group-committed', () => {
  const input = (keyId: string, idempotencyKey: string, fingerprint: string) => ({ keyId, idempotencyKey, fingerprint, retentionMs: 86_400_000 });

  it('one statement notes new keys and expired ones, and tells the same request from another for the rest', async () => {
    const a = await h.account();
    const used = idem();
    const expired = idem();
    const [first] = await reserveIdempotencyKeys(h.db.knex, [input(a.testKeyId, used, 'fp-1')]);
    expect(first).toBe('first_use');
    await reserveIdempotencyKeys(h.db.knex, [input(a.testKeyId, expired, 'fp-old')]);
    await records(a.testKeyId, expired).update({ expires_at: h.db.knex.raw("now() - interval '1 second'") });
    const fresh = idem();
    expect(
      await reserveIdempotencyKeys(h.db.knex, [
        input(a.testKeyId, used, 'fp-1'),
        input(a.testKeyId, fresh, 'fp-2'),
        input(a.testKeyId, expired, 'fp-3'),
        input(a.testKeyId, idem(), 'fp-4'),
      ]),
    ).toEqual(['same_request', 'first_use', 'first_use', 'first_use']);
    expect(await reserveIdempotencyKeys(h.db.knex, [input(a.testKeyId, used, 'fp-other'), input(a.testKeyId, fresh, 'fp-2')])).toEqual([
      'other_request',
      'same_request',
    ]);
    expect((await records(a.testKeyId, expired))[0]).toMatchObject({ fingerprint: 'fp-3' });
  });

  it('reservations made at once share a statement; a key twice among them is first use once', async () => {
    const a = await h.account();
    const reservations = keyReservations(h.db.knex);
    const keys = [idem(), idem(), idem()];
    const outcomes = await Promise.all([
      reservations.reserve(input(a.testKeyId, keys[0] ?? '', 'fp-a')),
      reservations.reserve(input(a.testKeyId, keys[1] ?? '', 'fp-b')),
      reservations.reserve(input(a.testKeyId, keys[0] ?? '', 'fp-a')),
      reservations.reserve(input(a.testKeyId, keys[2] ?? '', 'fp-c')),
      reservations.reserve(input(a.testKeyId, keys[1] ?? '', 'fp-other')),
    ]);
    expect(outcomes).toEqual(['first_use', 'first_use', 'same_request', 'first_use', 'other_request']);
  });

  it('concurrent orders under many keys, each sent three times at once: one order per key', async () => {
    const a = await h.account();
    const keys = Array.from({ length: 8 }, () => idem());
    const before = h.upstream.orders();
    const responses = await Promise.all(keys.flatMap((key) => [0, 1, 2].map(() => order(a.test, key).then((res) => ({ key, res })))));
    expect(h.upstream.orders() - before).toBe(keys.length);
    for (const key of keys) {
      const created = responses.filter((entry) => entry.key === key && entry.res.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((entry) => (entry.res.body as { id: string }).id)).size).toBe(1);
    }
    for (const { res } of responses) if (res.status !== 201) expect(res.body.error.code).toBe('idempotency_key_reused');
  });
});

describe('what is not stored', () => {
  it('a request the gateway refused does not use up the key', async () => {
    const a = await h.account();
    const key = idem();
    expectError(await order(a.test, key, { bundle: 'b', quantity: 0 }), 400, 'invalid_parameter', 'quantity');
    expect(await records(owner(a), key)).toHaveLength(0);
    expect((await order(a.test, key)).status).toBe(201);
  });

  it('a service that could not be reached stores no answer anywhere, so a retry runs', async () => {
    const down = await startHarness({ INVENTORY_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      const a = await down.account();
      const key = idem();
      const send = () => request(down.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', key).send({ bundle: 'b' });
      expectError(await send(), 500, 'internal_error');
      // The edge notes only which request the key is for; it never keeps an answer.
      expect(
        await down.db
          .knex('gateway.idempotency_records')
          .where({ key_id: owner(a) })
          .select('status', 'response_status', 'response_body'),
      ).toEqual([{ status: 'forwarded', response_status: null, response_body: null }]);
      const again = await send();
      expectError(again, 500, 'internal_error');
      expect(again.headers['idempotent-replayed']).toBeUndefined();
    } finally {
      await down.close();
    }
  });
});

describe('an unknown outcome', () => {
  // The owning service records the key with its change (its own tests prove a retry never
  // changes anything twice), so the edge keeps no answer and asks the service again.
  it('after a timeout the retry reaches the service with the same Idempotency-Key', async () => {
    const a = await h.account();
    const key = idem();
    const send = () => request(h.app).post('/v1/test/usage').set(bearer(a.test)).set('Idempotency-Key', key).send({ esim: 'hang', bytes: 1 });
    const first = await send();
    expectError(first, 500, 'internal_error');
    expect(first.body.error.message).toMatch(/same Idempotency-Key/);
    // The edge kept no answer (only which request the key is for), so the retry goes to the service.
    expect(await records(owner(a), key).select('response_status')).toEqual([{ response_status: null }]);
    expectError(await send(), 500, 'internal_error');
    const reached = h.upstream.seen.filter((seen) => seen.url === '/v1/test/usage' && seen.headers['idempotency-key'] === key);
    expect(reached).toHaveLength(2);
    expect(new Set(reached.map((seen) => seen.headers['x-key-id']))).toEqual(new Set([a.testKeyId]));
  });

  it('a 5xx or Retry-After answer is not stored: the retry asks the service again', async () => {
    const a = await h.account();
    for (const [status, retryAfter] of [
      [503, undefined],
      [409, '1'],
    ] as const) {
      const key = idem();
      h.upstream.answerNext('/v1/test/usage', { status, retryAfter });
      const send = () => request(h.app).post('/v1/test/usage').set(bearer(a.test)).set('Idempotency-Key', key).send({ esim: 'esim_x', bytes: 1 });
      const first = await send();
      expect(first.status).toBe(status);
      if (retryAfter) expect(first.headers['retry-after']).toBe(retryAfter);
      expect(await records(owner(a), key).select('response_status')).toEqual([{ response_status: null }]);
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      const replayed = await send();
      expect(replayed.status).toBe(200);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
    }
  });

  it('a duplicate of a running request is told to retry (409 with Retry-After)', async () => {
    const a = await h.account();
    const key = idem();
    const release = h.upstream.hold();
    const send = () => request(h.app).post('/v1/events/replay').set(bearer(a.test)).set('Idempotency-Key', key).send({});
    const first = send().then((res) => res);
    await until(async () => (await records(owner(a), key)).length === 1);
    const duplicate = await send();
    expectError(duplicate, 409, 'idempotency_key_reused', 'Idempotency-Key');
    expect(duplicate.headers['retry-after']).toBe('1');
    release();
    expect((await first).status).toBe(200);
  });

  it('a claim whose gateway died is taken over once its short lease ends', async () => {
    const a = await h.account();
    const key = idem();
    const body = { bundle: 'esim_5GB_30D_EU', quantity: 1 };
    // A claim left by a gateway that died mid-call: in progress, lease already over.
    await h.db.knex('gateway.idempotency_records').insert({
      key_id: owner(a),
      idempotency_key: key,
      fingerprint: requestFingerprint('POST', '/v1/esim', Buffer.from(JSON.stringify(body))),
      claim_id: 'dead-gateway',
      status: 'in_progress',
      locked_until: h.db.knex.raw("now() - interval '1 millisecond'"),
      expires_at: h.db.knex.raw("now() + interval '1 day'"),
    });
    const res = await order(a.test, key, body);
    expect(res.status).toBe(201);
  });

  it('the lease of a claim is renewed while the service works, so no retry takes it over meanwhile', async () => {
    const short = await startHarness({ IDEMPOTENCY_LEASE_MS: '300' });
    try {
      const a = await short.account();
      const key = idem();
      const release = short.upstream.hold();
      const send = () => request(short.app).post('/v1/events/replay').set(bearer(a.test)).set('Idempotency-Key', key).send({});
      const first = send().then((res) => res);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expectError(await send(), 409, 'idempotency_key_reused', 'Idempotency-Key');
      release();
      expect((await first).status).toBe(200);
      expect(short.upstream.handled('POST', '/v1/events/replay')).toBe(1);
    } finally {
      await short.close();
    }
  });
});

describe('retention', () => {
  it('records are kept for 24 hours', async () => {
    const a = await h.account();
    const key = idem();
    await order(a.test, key);
    const [row] = await h.db.knex
      .raw<{ rows: { hours: number }[] }>(
        `select extract(epoch from (expires_at - created_at)) / 3600 as hours from gateway.idempotency_records where key_id = ? and idempotency_key = ?`,
        [owner(a), key],
      )
      .then((r) => r.rows);
    expect(Number(row?.hours)).toBeCloseTo(24, 5);
  });

  it('an expired record is not replayed, and the purge deletes it', async () => {
    const a = await h.account();
    const key = idem();
    const first = await order(a.test, key);
    // Past the retention at the edge and in the service that owns the order.
    await records(owner(a), key).update({ expires_at: h.db.knex.raw("now() - interval '1 second'") });
    await h.db
      .knex('upstream_stub.idempotency_records')
      .where({ key_id: owner(a), idempotency_key: key })
      .update({ expires_at: h.db.knex.raw("now() - interval '1 second'") });
    const again = await order(a.test, key);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.id).not.toBe(first.body.id);

    const other = idem();
    await order(a.test, other);
    await records(owner(a), other).update({ expires_at: h.db.knex.raw("now() - interval '1 second'") });
    expect(await gatewayIdempotency.purgeExpired(h.db.knex)).toBeGreaterThanOrEqual(1);
    expect(await records(owner(a), other)).toHaveLength(0);
    expect(await records(owner(a), key)).toHaveLength(1);
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met before the deadline');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
