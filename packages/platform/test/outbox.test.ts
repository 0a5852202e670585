import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Knex } from 'knex';
import { ulid } from 'ulid';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test, vi } from 'vitest';
import type { Bus, BusMessage, PublishInput, PublishResult } from '../src/bus/types.ts';
import { runMigrations } from '../src/db/migrate.ts';
import type { Database } from '../src/db/types.ts';
import { backoffMs, createOutbox, outboxMigration, startOutboxRelay } from '../src/outbox/index.ts';
import type { OutboxEvent, OutboxRelay, OutboxRelayOptions } from '../src/outbox/index.ts';
import { createTestBus } from '../src/testing/bus.ts';
import { testDatabaseBackends } from '../src/testing/database.ts';

const SETUP_TIMEOUT = 60_000;
const busKinds: ('jetstream' | 'memory')[] = process.env.NATS_URL ? ['jetstream', 'memory'] : ['memory'];
const combos = testDatabaseBackends().flatMap((db) => busKinds.map((busKind) => ({ ...db, busKind })));

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

interface OutboxRowView {
  id: string;
  attempts: number;
  published_at: Date | null;
  last_error: string | null;
  due: boolean;
}

/** Records everything the consumer receives; `settle` proves nothing else is still on its way. */
async function collect(bus: Bus) {
  const received: BusMessage[] = [];
  await bus.subscribe({ durable: 'collector', filterSubjects: ['events.>'] }, (msg) => {
    received.push(msg);
    return Promise.resolve();
  });
  return {
    received,
    /**
     * Publishes a sentinel and waits for it: a durable gets its messages one at a time in
     * order, so everything published before the sentinel (a duplicate included) has arrived
     * once the sentinel has. Returns the non-sentinel messages.
     */
    async settle(): Promise<BusMessage[]> {
      const id = `sentinel_${ulid()}`;
      await bus.publish({ id, subject: 'events.test.sentinel', payload: null });
      await vi.waitFor(() => expect(received.map((m) => m.id)).toContain(id), { timeout: 10_000, interval: 10 });
      return received.filter((m) => m.subject !== 'events.test.sentinel');
    },
  };
}

/** The real bus, recording each publish and its result. */
function recordingBus(bus: Bus) {
  const publishes: { input: PublishInput; result: PublishResult }[] = [];
  const wrapped: Bus = {
    kind: bus.kind,
    async publish(input) {
      const result = await bus.publish(input);
      publishes.push({ input, result });
      return result;
    },
    subscribe: (opts, handler) => bus.subscribe(opts, handler),
    notify: (subject, payload) => bus.notify(subject, payload),
    listen: (subject, handler) => bus.listen(subject, handler),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
  return { bus: wrapped, publishes };
}

/** The real bus, except that the first `failures` publishes of message `id` throw, as a broker outage would. */
function failingFirst(bus: Bus, id: string, failures: number): Bus {
  let left = failures;
  return {
    kind: bus.kind,
    publish(input) {
      if (input.id === id && left > 0) {
        left -= 1;
        return Promise.reject(new Error('bus unavailable'));
      }
      return bus.publish(input);
    },
    subscribe: (opts, handler) => bus.subscribe(opts, handler),
    notify: (subject, payload) => bus.notify(subject, payload),
    listen: (subject, handler) => bus.listen(subject, handler),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
}

describe.each(combos)('outbox on $kind with the $busKind bus', ({ create, busKind }) => {
  let db: Database;
  let bus: Bus;
  let schema: string;
  let knex: Knex;
  const relays: OutboxRelay[] = [];
  let schemaCount = 0;

  const event = (name: string, extra: Partial<OutboxEvent> = {}): OutboxEvent => ({
    id: `evt_${name}_${ulid().toLowerCase()}`,
    subject: `events.test.outbox.${name}`,
    payload: { name, list: [1, 2, 3] },
    ...extra,
  });

  const relay = (options: Partial<OutboxRelayOptions> = {}): OutboxRelay => {
    // A long poll interval: the tests drive the relay with flush() so nothing depends on timing.
    const started = startOutboxRelay({ knex, bus, schema, pollIntervalMs: 60_000, ...options });
    relays.push(started);
    return started;
  };

  const rows = (): Promise<OutboxRowView[]> =>
    knex
      .withSchema(schema)
      .from('outbox')
      .select('id', 'attempts', 'published_at', 'last_error', knex.raw('next_attempt_at <= now() as due'))
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);

  const commit = async (...events: OutboxEvent[]) => {
    const outbox = createOutbox(schema);
    await knex.transaction(async (trx) => {
      for (const e of events) await outbox.add(trx, e);
    });
  };

  beforeAll(async () => {
    db = await create();
    knex = db.knex;
  }, SETUP_TIMEOUT);
  afterAll(() => db?.close());

  beforeEach(async () => {
    // Each test gets its own outbox table and its own bus, so none sees another's rows or messages.
    schemaCount += 1;
    schema = `outbox_t${schemaCount}`;
    await runMigrations(knex, { schema, migrations: { '001_outbox': outboxMigration(schema) } });
    bus = await createTestBus({ kind: busKind });
  }, SETUP_TIMEOUT);
  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await bus.close();
  });

  describe('with trace context', () => {
    const contextManager = new AsyncLocalStorageContextManager();
    beforeAll(() => {
      context.setGlobalContextManager(contextManager.enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    });
    afterAll(() => {
      context.disable();
      propagation.disable();
    });

    test('publishes committed rows once, with message id = event id and the traceparent', async () => {
      const consumer = await collect(bus);
      const first = event('first');
      const second = event('second', { headers: { 'x-origin': 'test' } });
      const spanContext = { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
      await context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => commit(first, second));

      expect(await relay().flush()).toBe(2);

      const received = await consumer.settle();
      expect(received.map((m) => m.id)).toEqual([first.id, second.id]);
      expect(received[0]).toMatchObject({ subject: first.subject, payload: first.payload });
      for (const msg of received) expect(msg.headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
      expect(received[1]?.headers['x-origin']).toBe('test');
      expect((await rows()).map((r) => r.published_at)).toEqual([expect.any(Date), expect.any(Date)]);
    });

    test('keeps a traceparent the caller passed instead of the active one', async () => {
      const consumer = await collect(bus);
      const given = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
      const spanContext = { traceId, spanId, traceFlags: TraceFlags.SAMPLED };
      const e = event('given', { headers: { traceparent: given } });
      await context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => commit(e));
      await relay().flush();
      expect((await consumer.settle()).map((m) => m.headers.traceparent)).toEqual([given]);
    });
  });

  test('a commit wakes the relay: its rows are published without waiting for a poll', async () => {
    const consumer = await collect(bus);
    relay({ pollIntervalMs: 600_000 });
    const started = Date.now();
    const e = event('woken');
    await commit(e);
    // Far below the ten-minute poll: the commit itself woke the relay.
    await vi.waitFor(() => expect(consumer.received.map((m) => m.id)).toEqual([e.id]), { timeout: 30_000, interval: 10 });
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('a rolled-back transaction publishes nothing', async () => {
    const consumer = await collect(bus);
    const outbox = createOutbox(schema);
    await expect(
      knex.transaction(async (trx) => {
        await outbox.add(trx, event('rolled_back'));
        throw new Error('business rule failed');
      }),
    ).rejects.toThrow('business rule failed');

    expect(await relay().flush()).toBe(0);
    expect(await rows()).toEqual([]);
    expect(await consumer.settle()).toEqual([]);
  });

  test('crash between commit and publish: a relay started later publishes the rows exactly once', async () => {
    const consumer = await collect(bus);
    const events = [event('a'), event('b'), event('c')];
    await commit(...events);
    // No relay ran (the process died after the commit): the rows wait, pending and due.
    expect((await rows()).map((r) => [r.published_at, r.due])).toEqual([
      [null, true],
      [null, true],
      [null, true],
    ]);

    const restarted = relay();
    expect(await restarted.flush()).toBe(3);
    await restarted.stop();
    // A later relay finds nothing left to do.
    expect(await relay().flush()).toBe(0);

    expect((await consumer.settle()).map((m) => m.id)).toEqual(events.map((e) => e.id));
  });

  test('crash after publish, before marking: the re-publish is a bus duplicate, seen once', async () => {
    const consumer = await collect(bus);
    const e = event('republished');
    await commit(e);
    // What the dead relay did before it could mark the row: publish it.
    const [stored] = await knex.withSchema(schema).from('outbox').where('id', e.id).select('subject', 'payload', 'headers');
    await expect(bus.publish({ id: e.id, subject: stored.subject, payload: stored.payload, headers: stored.headers })).resolves.toEqual({
      duplicate: false,
    });

    const recorder = recordingBus(bus);
    expect(await relay({ bus: recorder.bus }).flush()).toBe(1);
    expect(recorder.publishes.map((p) => [p.input.id, p.result.duplicate])).toEqual([[e.id, true]]);
    expect((await rows())[0]?.published_at).toBeInstanceOf(Date);
    expect((await consumer.settle()).map((m) => m.id)).toEqual([e.id]);
  });

  test('a failed publish is recorded with backoff, the rest of the batch goes on, and it is retried', async () => {
    const consumer = await collect(bus);
    const [first, second] = [event('flaky'), event('steady')];
    await commit(first, second);
    const warnings: object[] = [];
    const logger = { info: () => {}, warn: (obj: object) => warnings.push(obj), error: () => {} };
    // A long base backoff keeps the failed row from being due again until the test says so.
    const flaky = relay({ bus: failingFirst(bus, first.id, 2), baseBackoffMs: 600_000, maxBackoffMs: 3_600_000, logger });

    expect(await flaky.flush()).toBe(1);
    const [failedRow, secondRow] = await rows();
    expect(failedRow).toMatchObject({ id: first.id, attempts: 1, published_at: null, last_error: 'bus unavailable', due: false });
    expect(secondRow).toMatchObject({ id: second.id, attempts: 0, last_error: null });
    expect(secondRow?.published_at).toBeInstanceOf(Date);
    expect(warnings).toEqual([expect.objectContaining({ eventId: first.id, attempts: 1 })]);

    // Not due yet: a flush leaves it alone.
    expect(await flaky.flush()).toBe(0);

    // Time passes (the backoff elapses); the bus still fails once more.
    const makeDue = () => knex.withSchema(schema).table('outbox').where('id', first.id).update({ next_attempt_at: knex.fn.now() });
    await makeDue();
    expect(await flaky.flush()).toBe(0);
    let [firstRow] = await rows();
    expect(firstRow).toMatchObject({ attempts: 2, published_at: null, due: false });

    await makeDue();
    expect(await flaky.flush()).toBe(1);
    [firstRow] = await rows();
    expect(firstRow).toMatchObject({ attempts: 2, last_error: null });
    expect(firstRow?.published_at).toBeInstanceOf(Date);

    expect((await consumer.settle()).map((m) => m.id)).toEqual([second.id, first.id]);
  });

  test('two relays in parallel publish every row exactly once', async () => {
    const consumer = await collect(bus);
    const events = Array.from({ length: 60 }, (_, i) => event(`bulk${String(i).padStart(2, '0')}`));
    await commit(...events);

    // Both relays count what they publish; a publish that yields lets the other relay run in between.
    const publishedBy = (publishes: string[]): Bus => ({
      kind: bus.kind,
      async publish(input) {
        publishes.push(input.id);
        await yieldToLoop();
        return bus.publish(input);
      },
      subscribe: (opts, handler) => bus.subscribe(opts, handler),
      notify: (subject, payload) => bus.notify(subject, payload),
      listen: (subject, handler) => bus.listen(subject, handler),
      ping: () => bus.ping(),
      close: () => bus.close(),
    });
    const byA: string[] = [];
    const byB: string[] = [];
    const a = relay({ bus: publishedBy(byA), batchSize: 5 });
    const b = relay({ bus: publishedBy(byB), batchSize: 5 });
    const [countA, countB] = await Promise.all([a.flush(), b.flush()]);

    expect(countA + countB).toBe(events.length);
    // Not once too often: no row was handed to the bus by both relays.
    expect([...byA, ...byB].sort()).toEqual(events.map((e) => e.id).sort());
    expect((await consumer.settle()).map((m) => m.id).sort()).toEqual(events.map((e) => e.id).sort());
    expect((await rows()).every((r) => r.published_at !== null)).toBe(true);
  });

  test('wake() publishes a fresh row without waiting for the poll interval', async () => {
    const consumer = await collect(bus);
    const running = relay({ pollIntervalMs: 3_600_000 });
    const e = event('woken');
    await commit(e);
    running.wake();
    await vi.waitFor(() => expect(consumer.received.map((m) => m.id)).toContain(e.id), { timeout: 10_000, interval: 10 });
  });

  test('prune deletes published rows past the retention, and nothing else', async () => {
    const [old, recent, pending] = [event('old'), event('recent'), event('pending')];
    await commit(old, recent);
    const r = relay();
    await r.flush();
    await commit(pending);
    await knex
      .withSchema(schema)
      .table('outbox')
      .where('id', old.id)
      .update({ published_at: knex.raw("now() - interval '8 days'") });

    expect(await r.prune()).toBe(1);
    expect((await rows()).map((row) => row.id).sort()).toEqual([recent.id, pending.id].sort());
  });

  test('refuses an event outside a transaction or with a subject the bus would refuse', async () => {
    const outbox = createOutbox(schema);
    await expect(outbox.add(knex as unknown as Knex.Transaction, event('plain'))).rejects.toThrow(/transaction/);
    await expect(knex.transaction((trx) => outbox.add(trx, event('bad', { subject: 'events.test.*' })))).rejects.toThrow();
    expect(await rows()).toEqual([]);
  });
});

describe('backoffMs', () => {
  test('doubles per attempt within jitter, and never exceeds the cap', () => {
    for (let attempt = 1; attempt <= 12; attempt += 1) {
      const ceiling = Math.min(60_000, 1_000 * 2 ** (attempt - 1));
      for (let i = 0; i < 50; i += 1) {
        const delay = backoffMs(attempt, 1_000, 60_000);
        expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
        expect(delay).toBeLessThanOrEqual(ceiling);
      }
    }
  });
});
