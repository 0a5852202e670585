import { startOutboxRelay } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeKeyById, rotateKey } from '../src/index.ts';
import { bearer, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

interface OutboxRow {
  subject: string;
  payload: { type: string; environment: string; account_id: string; data: { object: { id: string; status: string } } };
}

const events = async (accountId: string, type: string) =>
  ((await h.db.knex('gateway.outbox').orderBy('created_at')) as OutboxRow[]).filter((row) => row.payload.account_id === accountId && row.payload.type === type);

describe('api_key events', () => {
  it('api_key.issued for each key of a new account, through the outbox', async () => {
    const a = await h.account();
    const issued = await events(a.accountId, 'api_key.issued');
    expect(issued.map((row) => row.payload.data.object.id).sort()).toEqual([a.testKeyId, a.liveKeyId].sort());
    expect(issued.map((row) => row.subject).sort()).toEqual(['events.live.api_key.issued', 'events.test.api_key.issued']);
  });

  it('api_key.revoked when a key is revoked or rotated', async () => {
    const a = await h.account();
    await revokeKeyById(h.db.knex, a.testKeyId);
    await rotateKey(h.db.knex, a.accountId, 'live');
    const revoked = await events(a.accountId, 'api_key.revoked');
    expect(revoked.map((row) => row.payload.data.object.id).sort()).toEqual([a.testKeyId, a.liveKeyId].sort());
    expect(revoked.every((row) => row.payload.data.object.status === 'revoked')).toBe(true);
  });

  it('api_key.first_used exactly once, even with concurrent requests on two gateway instances', async () => {
    const a = await h.account();
    const second = await h.secondInstance();
    const responses = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        request(i % 2 === 0 ? h.app : second)
          .get('/v1/version')
          .set(bearer(a.test)),
      ),
    );
    expect(responses.every((res) => res.status === 200)).toBe(true);
    await request(h.app).get('/v1/version').set(bearer(a.test));
    const firstUsed = await events(a.accountId, 'api_key.first_used');
    expect(firstUsed).toHaveLength(1);
    expect(firstUsed[0]?.payload.data.object.id).toBe(a.testKeyId);
    expect(firstUsed[0]?.payload.environment).toBe('test');
    const key = await h.db.knex('gateway.api_keys').where({ id: a.testKeyId }).first('first_used_at', 'last_used_at');
    expect(key.first_used_at).toBeInstanceOf(Date);
    expect(key.last_used_at).toBeInstanceOf(Date);
  });

  it('the relay publishes the events to the bus', async () => {
    const a = await h.account();
    const received: { id: string; subject: string }[] = [];
    const subscription = await h.bus.subscribe({ durable: `gw-test-${Date.now()}`, filterSubjects: ['events.>'] }, (msg) => {
      received.push({ id: msg.id, subject: msg.subject });
      return Promise.resolve();
    });
    const relay = startOutboxRelay({ knex: h.db.knex, bus: h.bus, schema: 'gateway' });
    try {
      await request(h.app).get('/v1/version').set(bearer(a.live));
      await relay.flush();
      const wanted = (await events(a.accountId, 'api_key.first_used')).map((row) => row.payload);
      expect(wanted).toHaveLength(1);
      const deadline = Date.now() + 10_000;
      while (!received.some((msg) => msg.subject.endsWith('events.live.api_key.first_used'))) {
        if (Date.now() > deadline) throw new Error('api_key.first_used was not published');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await relay.stop();
      await subscription.stop();
    }
  });
});
