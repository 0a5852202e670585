import { ApiError } from '@connectivity/contracts';
import type express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMigrations } from '../src/db/migrate.ts';
import type { Database } from '../src/db/types.ts';
import { claimOf, createLogger, createServiceApp, idempotencyMigration, idempotencyOwner, idempotencyStore, newId, oneStatement } from '../src/index.ts';
import { testDatabaseBackends } from '../src/testing/database.ts';

const TOKEN = 'an-internal-token-of-some-length';
const SCHEMA = 'idem_test';

/** The account of each API key in these tests: a key of its own unless a test gives one. */
const accounts = new Map<string, string>();
const accountOf = (keyId: string): string => {
  const known = accounts.get(keyId) ?? newId('account');
  accounts.set(keyId, known);
  return known;
};
/** Whom a key's Idempotency-Keys belong to (record 0200). */
const ownerOf = (keyId: string) => idempotencyOwner(accountOf(keyId), 'test');

/** What the gateway sends with a caller's request. */
const headers = (keyId: string, idempotencyKey: string) => ({
  'x-internal-token': TOKEN,
  'x-account-id': accountOf(keyId),
  'x-environment': 'test',
  'x-key-id': keyId,
  'idempotency-key': idempotencyKey,
});

describe.each(testDatabaseBackends())('idempotency in the owning service, on $kind', ({ create }) => {
  let db: Database;
  let app: express.Express;
  /** Requests to /hold wait until the gate named by their `name` is opened. */
  const gates = new Map<string, (() => void)[]>();
  const waiting = (name: string) => gates.get(name)?.length ?? 0;
  const open = (name: string) => {
    for (const resolve of gates.get(name) ?? []) resolve();
  };
  let fail: 'none' | 'client' | 'server' = 'none';

  beforeAll(async () => {
    db = await create();
    await runMigrations(db.knex, {
      schema: SCHEMA,
      migrations: {
        '0001_things': { up: (knex) => knex.raw(`create table ${SCHEMA}.things (id text primary key, name text not null)`) },
        '0002_idempotency': idempotencyMigration(SCHEMA),
      },
    });
    app = createServiceApp({
      logger: createLogger({ name: 'test', level: 'silent' }),
      baseUrl: 'https://api.example.test',
      internalToken: TOKEN,
      checks: {},
      idempotency: { knex: db.knex, schema: SCHEMA, leaseMs: 400 },
      routes: (router) => {
        const make = async (req: express.Request, res: express.Response) => {
          if (fail === 'client') throw new ApiError('invalid_parameter', { param: 'name' });
          if (fail === 'server') throw new Error('the database went away');
          return claimOf(res).answerInTransaction(db.knex, 201, async (trx) => {
            const thing = { object: 'thing', id: newId('order'), name: String((req.body as { name: string }).name) };
            await trx.table(`${SCHEMA}.things`).insert({ id: thing.id, name: thing.name });
            return thing;
          });
        };
        router.post('/things', async (req, res, next) => {
          try {
            res.status(201).json(await make(req, res));
          } catch (error) {
            next(error);
          }
        });
        // The same change made by one statement (`oneStatement`) instead of a transaction.
        const makeInOneStatement = async (req: express.Request, res: express.Response) => {
          const thing = { object: 'thing', id: newId('order'), name: String((req.body as { name: string }).name) };
          const statement = oneStatement();
          statement.add(db.knex.table(`${SCHEMA}.things`).insert({ id: thing.id, name: thing.name }));
          claimOf(res).recordIn(statement, db.knex, 201, thing);
          await statement.run(db.knex);
          return thing;
        };
        for (const [path, change] of [
          ['/hold', make],
          ['/hold-one', makeInOneStatement],
        ] as const) {
          router.post(path, async (req, res, next) => {
            try {
              const name = String((req.body as { name: string }).name);
              await new Promise<void>((resolve) => gates.set(name, [...(gates.get(name) ?? []), resolve]));
              res.status(201).json(await change(req, res));
            } catch (error) {
              next(error);
            }
          });
        }
      },
    });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
  });

  const things = async (name: string) => db.knex.table(`${SCHEMA}.things`).where({ name });
  const post = (path: string, keyId: string, key: string, name: string) => request(app).post(path).set(headers(keyId, key)).send({ name });
  const hold = (keyId: string, key: string, name: string, path = '/hold') => post(path, keyId, key, name).then((res) => res);
  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 10_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('condition not met');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  test('a repeat is answered with the recorded answer and changes nothing again', async () => {
    const keyId = newId('apiKey');
    const name = newId('request');
    const first = await post('/things', keyId, 'key-00000001', name);
    expect(first.status).toBe(201);
    const again = await post('/things', keyId, 'key-00000001', name);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await things(name)).toHaveLength(1);
    // A rotated key of the same account finds the answer (record 0200).
    const rotated = newId('apiKey');
    accounts.set(rotated, accountOf(keyId));
    expect((await post('/things', rotated, 'key-00000001', name)).headers['idempotent-replayed']).toBe('true');
    expect(await things(name)).toHaveLength(1);
    // Another account's identical key is another request.
    expect((await post('/things', newId('apiKey'), 'key-00000001', name)).headers['idempotent-replayed']).toBeUndefined();
    expect(await things(name)).toHaveLength(2);
  });

  test('the same key for a different request is 409 idempotency_key_reused, without Retry-After', async () => {
    const keyId = newId('apiKey');
    await post('/things', keyId, 'key-00000002', 'a');
    const res = await post('/things', keyId, 'key-00000002', 'b');
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(res.headers['retry-after']).toBeUndefined();
  });

  test('concurrent duplicates make one change; the others are told to retry or get the answer', async () => {
    const keyId = newId('apiKey');
    const name = newId('request');
    const responses = await Promise.all(Array.from({ length: 10 }, () => post('/things', keyId, 'key-00000003', name)));
    expect(await things(name)).toHaveLength(1);
    for (const res of responses) {
      if (res.status === 201) continue;
      expect(res.status).toBe(409);
      expect(res.headers['retry-after']).toBe('1');
    }
  });

  test('a duplicate of a request still running gets 409 with Retry-After, then the answer once it is done', async () => {
    const keyId = newId('apiKey');
    const name = newId('request');
    const first = hold(keyId, 'key-00000004', name);
    await until(() => waiting(name) === 1);
    // Longer than the lease: the holder renews it, so the duplicate still finds it running.
    await new Promise((resolve) => setTimeout(resolve, 900));
    const duplicate = await hold(keyId, 'key-00000004', name);
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers['retry-after']).toBe('1');
    open(name);
    expect((await first).status).toBe(201);
    const replay = await hold(keyId, 'key-00000004', name);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(await things(name)).toHaveLength(1);
  });

  test.each(['/hold', '/hold-one'])(
    'a claim whose holder died is taken over once its lease is over; the old holder can no longer commit (%s)',
    async (path) => {
      const keyId = newId('apiKey');
      const name = newId('request');
      const stalled = hold(keyId, 'key-00000005', name, path);
      await until(() => waiting(name) === 1);
      // The holder stops renewing (as a killed process would) and its lease runs out.
      await db.knex
        .table(`${SCHEMA}.idempotency_records`)
        .where({ key_id: ownerOf(keyId) })
        .update({ claim_id: 'dead-holder', locked_until: db.knex.raw("now() - interval '1 second'") });
      const retry = hold(keyId, 'key-00000005', name, path);
      await until(() => waiting(name) === 2);
      open(name);
      const [late, taken] = await Promise.all([stalled, retry]);
      expect(taken.status).toBe(201);
      // The stalled holder lost its claim: its change was refused and rolled back.
      expect(late.status).toBe(409);
      expect(late.headers['retry-after']).toBe('1');
      expect(await things(name)).toHaveLength(1);
      const replay = await hold(keyId, 'key-00000005', name, path);
      expect(replay.body).toEqual(taken.body);
    },
  );

  test('a taken-over claim of the same request replays the first answer, never a second change', async () => {
    const keyId = newId('apiKey');
    const name = newId('request');
    const first = await post('/things', keyId, 'key-00000007', name);
    // As if the gateway died before storing the answer and its retry reached the service again.
    const again = await post('/things', keyId, 'key-00000007', name);
    expect(again.body).toEqual(first.body);
    expect(await things(name)).toHaveLength(1);
  });

  test('a refusal is kept and replayed; a 5xx gives the key back so a retry runs, both to a retry that follows at once', async () => {
    const keyId = newId('apiKey');
    const name = newId('request');
    fail = 'client';
    const refused = await post('/things', keyId, 'key-00000008', name);
    fail = 'none';
    expect(refused.status).toBe(400);
    // At once: each answer settles its key before it is sent (kept, or given back).
    const replayed = await post('/things', keyId, 'key-00000008', name);
    expect(replayed.status).toBe(400);
    expect(replayed.headers['idempotent-replayed']).toBe('true');

    fail = 'server';
    expect((await post('/things', keyId, 'key-00000009', name)).status).toBe(500);
    fail = 'none';
    const retried = await post('/things', keyId, 'key-00000009', name);
    expect(retried.status).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(await things(name)).toHaveLength(1);
  });

  test('a retry that follows a 5xx at once runs again, even while giving the key back is slow', async () => {
    // Every delete of a record waits 300 ms first (a statement trigger: before any row is locked),
    // so a key given back only after the answer went out would still be held when the retry came.
    await db.knex.raw(`create function ${SCHEMA}.slow_release() returns trigger language plpgsql as $$ begin perform pg_sleep(0.3); return null; end $$`);
    await db.knex.raw(
      `create trigger slow_release before delete on ${SCHEMA}.idempotency_records for each statement execute function ${SCHEMA}.slow_release()`,
    );
    try {
      const keyId = newId('apiKey');
      const name = newId('request');
      fail = 'server';
      expect((await post('/things', keyId, 'key-00000019', name)).status).toBe(500);
      fail = 'none';
      const retried = await post('/things', keyId, 'key-00000019', name);
      expect(retried.status, JSON.stringify(retried.body)).toBe(201);
      expect(await things(name)).toHaveLength(1);
    } finally {
      fail = 'none';
      await db.knex.raw(`drop trigger slow_release on ${SCHEMA}.idempotency_records`);
      await db.knex.raw(`drop function ${SCHEMA}.slow_release()`);
    }
  });

  test('a call without a key id (the service acting for itself, or the operator) records nothing', async () => {
    const name = newId('request');
    const { 'x-key-id': _keyId, ...rest } = headers('unused', 'key-00000010');
    await request(app).post('/things').set(rest).send({ name });
    await request(app).post('/things').set(rest).send({ name });
    expect(await things(name)).toHaveLength(2);
  });

  test('concurrent first uses of many keys (group-committed claims, duplicates among them) make one change per key', async () => {
    const keyId = newId('apiKey');
    const names = Array.from({ length: 6 }, () => newId('request'));
    // Each key sent three times at once, interleaved: the claims go out in shared statements.
    const sent = names.flatMap((name, i) => [0, 1, 2].map(() => ({ name, key: `key-batch-${i}` })));
    const responses = await Promise.all(sent.map(({ name, key }) => post('/things', keyId, key, name)));
    for (const name of names) expect(await things(name)).toHaveLength(1);
    for (const res of responses) {
      if (res.status === 201) continue;
      expect(res.status).toBe(409);
      expect(res.headers['retry-after']).toBe('1');
    }
    // And again once done: each key replays its one answer.
    const replays = await Promise.all(names.map((name, i) => post('/things', keyId, `key-batch-${i}`, name)));
    for (const res of replays) expect(res.headers['idempotent-replayed']).toBe('true');
  });
});

describe.each(testDatabaseBackends())('claimMany on $kind', ({ create }) => {
  let db: Database;
  const store = idempotencyStore(`${SCHEMA}.idempotency_records`);
  beforeAll(async () => {
    db = await create();
    await runMigrations(db.knex, { schema: SCHEMA, migrations: { '0002_idempotency': idempotencyMigration(SCHEMA) } });
  }, 60_000);
  afterAll(() => db?.close());

  const input = (keyId: string, idempotencyKey: string, fingerprint = 'fp') => ({
    keyId,
    idempotencyKey,
    fingerprint,
    claimId: newId('request'),
    leaseMs: 60_000,
    retentionMs: 86_400_000,
  });

  test('claims new keys, expired records and abandoned claims of the same request in one statement, and leaves every other key to `claim`', async () => {
    const keyId = newId('apiKey');
    const completed = input(keyId, 'completed');
    const running = input(keyId, 'running');
    const expired = input(keyId, 'expired');
    const abandoned = input(keyId, 'abandoned');
    const abandonedOther = input(keyId, 'abandoned-other');
    for (const earlier of [completed, running, expired, abandoned, abandonedOther]) expect(await store.claim(db.knex, earlier)).toEqual({ kind: 'claimed' });
    expect(await store.complete(db.knex, completed, { status: 201, headers: {}, body: '{}' })).toBe(true);
    const table = `${SCHEMA}.idempotency_records`;
    await db.knex
      .table(table)
      .where({ key_id: keyId, idempotency_key: 'expired' })
      .update({ expires_at: db.knex.raw("now() - interval '1 second'") });
    await db.knex
      .table(table)
      .whereIn('idempotency_key', ['abandoned', 'abandoned-other'])
      .andWhere({ key_id: keyId })
      .update({ locked_until: db.knex.raw("now() - interval '1 second'") });

    const batch = [
      input(keyId, 'new-1'),
      input(keyId, 'completed'),
      input(keyId, 'running'),
      input(keyId, 'expired'),
      input(keyId, 'abandoned'),
      input(keyId, 'abandoned-other', 'another request'),
      input(keyId, 'new-2'),
    ];
    expect(await store.claimMany(db.knex, batch)).toEqual([
      { kind: 'claimed' },
      undefined,
      undefined,
      { kind: 'claimed' },
      { kind: 'claimed' },
      undefined,
      { kind: 'claimed' },
    ]);
    const rows = await db.knex.table(table).where({ key_id: keyId }).select('idempotency_key', 'claim_id', 'status');
    const byKey = Object.fromEntries(rows.map((row: { idempotency_key: string; claim_id: string; status: string }) => [row.idempotency_key, row]));
    for (const index of [0, 3, 4, 6])
      expect(byKey[batch[index]?.idempotencyKey ?? '']).toMatchObject({ claim_id: batch[index]?.claimId, status: 'in_progress' });
    expect(byKey.completed).toMatchObject({ claim_id: completed.claimId, status: 'completed' });
    expect(byKey.running).toMatchObject({ claim_id: running.claimId });
    expect(byKey['abandoned-other']).toMatchObject({ claim_id: abandonedOther.claimId });
    // What was left undecided, `claim` decides as ever.
    expect(await store.claim(db.knex, batch[1] as ReturnType<typeof input>)).toMatchObject({ kind: 'replay' });
    expect(await store.claim(db.knex, batch[2] as ReturnType<typeof input>)).toEqual({ kind: 'in_progress' });
    expect(await store.claim(db.knex, batch[5] as ReturnType<typeof input>)).toEqual({ kind: 'mismatch' });
  });
});

describe('requestFingerprint', () => {
  test('compares parameters: key order and whitespace do not matter, values, method and path do', async () => {
    const { requestFingerprint } = await import('../src/idempotency/fingerprint.ts');
    const of = (body: string, method = 'POST', path = '/v1/esim') => requestFingerprint(method, path, Buffer.from(body));
    const base = of('{"bundle":"a","quantity":1,"metadata":{"x":"1","y":"2"}}');
    expect(of('{ "metadata": { "y": "2", "x": "1" }, "quantity": 1, "bundle": "a" }')).toBe(base);
    expect(of('{\n\t"bundle": "a",\n\t"quantity": 1,\n\t"metadata": {"x": "1", "y": "2"}\n}')).toBe(base);
    // The parsed body, when the caller has it, gives the same fingerprint.
    expect(requestFingerprint('POST', '/v1/esim', Buffer.from('{"quantity":1}'), { quantity: 1 })).toBe(of('{ "quantity" : 1 }'));
    expect(of('{"bundle":"a","quantity":2,"metadata":{"x":"1","y":"2"}}')).not.toBe(base);
    expect(of('{"bundle":"a","quantity":1,"metadata":{"x":"1"}}')).not.toBe(base);
    expect(of('{"bundle":"a","quantity":1,"metadata":{"x":"1","y":"2"}}', 'PATCH')).not.toBe(base);
    expect(of('{"bundle":"a","quantity":1,"metadata":{"x":"1","y":"2"}}', 'POST', '/v1/other')).not.toBe(base);
    // Not JSON: the bytes are compared.
    expect(of('not json')).toBe(of('not json'));
    expect(of('not json')).not.toBe(of('not  json'));
  });
});
