import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyOwner } from '@connectivity/platform';
import * as migration0009 from '../src/db/migrations/0009_idempotency_per_account.ts';
import { rotateKey } from '../src/use-cases/rotate-key.ts';
import { expectError } from './support/common-route-tests.ts';
import { bearer, idem, startHarness, type Harness } from './support/harness.ts';

/** An Idempotency-Key belongs to the account and environment, not to the API key (record 0200). */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '1000000' });
});
afterAll(async () => {
  await h?.close();
});

const order = (key: string, idempotencyKey: string, body: object = { bundle: 'esim_1GB_7D_GB' }) =>
  request(h.app).post('/v1/esim').set(bearer(key)).set('Idempotency-Key', idempotencyKey).send(body);

/** Whom the account's test key's Idempotency-Keys belong to. */
const owner = (a: { accountId: string }) => idempotencyOwner(a.accountId, 'test');

describe('a key rotation', () => {
  it('a key rotation keeps every stored answer: the same Idempotency-Key with the new key is replayed, one order (record 0200)', async () => {
    const a = await h.account();
    const key = idem();
    const before = h.upstream.orders();
    const first = await order(a.test, key);
    expect(first.status).toBe(201);
    const rotated = await rotateKey(h.db.knex, a.accountId, 'test');
    expect(rotated.revoked?.id).toBe(a.testKeyId);
    const again = await order(rotated.secret, key);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(h.upstream.orders() - before).toBe(1);
    // Another request under the same key is still refused after the rotation.
    expectError(await order(rotated.secret, key, { bundle: 'another' }), 409, 'idempotency_key_reused', 'Idempotency-Key');
    expect(h.upstream.orders() - before).toBe(1);
  });
});

describe('migration 0009 (record 0200)', () => {
  it("moves the edge's records from their key to its owner; where two keys of one owner used a key, the newest stays", async () => {
    const a = await h.account();
    const rotated = await rotateKey(h.db.knex, a.accountId, 'test');
    const [shared, alone] = [idem(), idem()];
    const row = (keyId: string, idempotencyKey: string, fingerprint: string, ageSeconds: number) => ({
      key_id: keyId,
      idempotency_key: idempotencyKey,
      fingerprint,
      claim_id: '',
      status: 'forwarded',
      created_at: h.db.knex.raw(`now() - interval '${ageSeconds} seconds'`),
      locked_until: h.db.knex.raw('now()'),
      expires_at: h.db.knex.raw("now() + interval '1 day'"),
    });
    await h.db
      .knex('gateway.idempotency_records')
      .insert([
        row(a.testKeyId, shared, 'fp-old', 60),
        row(rotated.key.id, shared, 'fp-new', 10),
        row(a.testKeyId, alone, 'fp-alone', 30),
        row(a.liveKeyId, alone, 'fp-live', 30),
      ]);
    await migration0009.up(h.db.knex);
    expect(await h.db.knex('gateway.idempotency_records').whereIn('key_id', [a.testKeyId, rotated.key.id, a.liveKeyId])).toEqual([]);
    const moved = await h.db
      .knex('gateway.idempotency_records')
      .whereIn('idempotency_key', [shared, alone])
      .orderBy(['idempotency_key', 'key_id'])
      .select('key_id', 'idempotency_key', 'fingerprint');
    expect(moved).toEqual(
      [
        { key_id: idempotencyOwner(a.accountId, 'live'), idempotency_key: alone, fingerprint: 'fp-live' },
        { key_id: owner(a), idempotency_key: alone, fingerprint: 'fp-alone' },
        { key_id: owner(a), idempotency_key: shared, fingerprint: 'fp-new' },
      ].sort((x, y) => (x.idempotency_key + x.key_id < y.idempotency_key + y.key_id ? -1 : 1)),
    );
  });
});
