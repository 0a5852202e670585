import type { Esim, Order, TestClock } from '@connectivity/contracts';
import { newId } from '@connectivity/platform';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA } from '../src/db/schema.ts';
import { eventually, headersFor, newCaller, startInventory, type Harness } from './support.ts';

/**
 * An advance expires a clock's eSIMs in transactions of TEST_CLOCK_ADVANCE_BATCH (record 0214):
 * with more eSIMs due than a batch holds, every one of them still expires, once, with its event.
 */
let h: Harness;
beforeAll(async () => {
  h = await startInventory({ TEST_CLOCK_ADVANCE_BATCH: '3' });
});
afterAll(async () => {
  await h.close();
});

const DAY = 86_400;
const key = () => `idem-${newId('request')}`;

describe('advancing a test clock in batches', () => {
  it('expires every eSIM of a clock that holds more than a batch (3 batches and a part), each with one esim.expired', async () => {
    const caller = newCaller('test');
    const frozen = Math.floor(Date.now() / 1000) + 10 * DAY;
    const created = await request(h.app).post('/v1/test/clocks').set(headersFor(caller)).set('Idempotency-Key', key()).send({ frozen_time: frozen });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const clock = created.body as TestClock;
    const esims: Esim[] = [];
    for (const quantity of [5, 5]) {
      const order = await h.order(caller, { bundle: 'esim_1GB_7D_US', quantity, test_clock: clock.id });
      expect(order.status, JSON.stringify(order.body)).toBe(201);
      esims.push(...(order.body as Order).esims);
    }

    const advanced = await request(h.app)
      .post(`/v1/test/clocks/${clock.id}/advance`)
      .set(headersFor(caller))
      .set('Idempotency-Key', key())
      .send({ frozen_time: frozen + 8 * DAY });
    expect(advanced.status, JSON.stringify(advanced.body)).toBe(200);
    expect(advanced.body).toMatchObject({ frozen_time: frozen + 8 * DAY, status: 'ready' });

    const ids = esims.map((esim) => esim.id);
    const states = await h.db.knex.withSchema(SCHEMA).from('esims').whereIn('id', ids).select<{ state: string }[]>('state');
    expect(states.map((row) => row.state)).toEqual(Array(10).fill('expired'));
    const outbox = await h.db.knex
      .withSchema(SCHEMA)
      .from('outbox')
      .whereRaw("payload->>'type' = 'esim.expired' and payload->'data'->'object'->>'id' = any(?)", [esims.map((esim) => esim.id)])
      .select<{ id: string }[]>('id');
    expect(outbox).toHaveLength(10);
    await eventually(() => {
      for (const esim of esims) expect(h.eventsOf(esim.id).filter((event) => event.type === 'esim.expired')).toHaveLength(1);
    });
  });
});
