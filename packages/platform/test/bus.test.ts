/**
 * One behaviour suite for both bus adapters: the in-process bus always, JetStream as well when
 * NATS_URL is set. Each test builds its own bus (on JetStream: its own streams and subject
 * prefix), so no test sees another's messages.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { createBus, createMemoryBus, DEAD_LETTER_HEADERS, deadLetterSubject } from '../src/bus/index.ts';
import type { Bus, BusMessage, MessageHandler, SubscribeOptions, Subscription } from '../src/bus/index.ts';
import { createTestBus } from '../src/testing/bus.ts';

const adapters: Array<'memory' | 'jetstream'> = process.env.NATS_URL ? ['memory', 'jetstream'] : ['memory'];

/** Polls until `check` holds; fails with `what` after the deadline instead of sleeping a fixed time. */
async function waitFor(what: string, check: () => boolean, timeoutMs = 4_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A handler that records what it received; `fail` decides per delivery whether to throw. */
function recorder(fail: (msg: BusMessage) => boolean = () => false) {
  const received: BusMessage[] = [];
  const handler: MessageHandler = (msg) => {
    received.push(msg);
    return fail(msg) ? Promise.reject(new Error(`refused ${msg.id}`)) : Promise.resolve();
  };
  const ids = () => received.map((m) => m.id);
  return { received, handler, ids };
}

/** A handler that records the messages it starts and holds each until `release`; counts how many run at once. */
function gated() {
  let active = 0;
  let maxActive = 0;
  const started: string[] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const handler: MessageHandler = async (msg) => {
    active += 1;
    maxActive = Math.max(maxActive, active);
    started.push(msg.id);
    await gate;
    active -= 1;
  };
  return { handler, started, release: () => release(), active: () => active, maxActive: () => maxActive };
}

const payload = (n: number) => ({ n, nested: { list: [1, 'two', null], flag: true } });

describe.each(adapters)('bus (%s)', (kind) => {
  let bus: Bus;
  const subscriptions: Subscription[] = [];

  // Every test gets a fresh bus; on JetStream that means fresh streams, deleted on close.
  const freshBus = async (): Promise<Bus> => {
    bus = await createTestBus({ kind });
    return bus;
  };
  const subscribe = async (opts: SubscribeOptions, handler: MessageHandler): Promise<Subscription> => {
    const sub = await bus.subscribe(opts, handler);
    subscriptions.push(sub);
    return sub;
  };

  afterEach(async () => {
    await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
    await bus.close();
  });

  it('reports its kind and answers ping while open', async () => {
    await freshBus();
    expect(bus.kind).toBe(kind);
    await expect(bus.ping()).resolves.toBeUndefined();
  });

  it('delivers a published message with its id, relative subject, payload and headers', async () => {
    await freshBus();
    const rec = recorder();
    await subscribe({ durable: 'basic', filterSubjects: ['events.test.>'] }, rec.handler);

    const result = await bus.publish({
      id: 'evt_1',
      subject: 'events.test.esim.released',
      payload: payload(1),
      headers: { 'x-request-id': 'req_1' },
    });

    expect(result).toEqual({ duplicate: false });
    await waitFor('the message', () => rec.received.length === 1);
    const [msg] = rec.received;
    expect(msg).toMatchObject({ id: 'evt_1', subject: 'events.test.esim.released', payload: payload(1), deliveryCount: 1 });
    expect(msg?.headers['x-request-id']).toBe('req_1');
  });

  it('drops a second publish with the same id and delivers the message once', async () => {
    await freshBus();
    const rec = recorder();
    await subscribe({ durable: 'dedupe', filterSubjects: ['events.test.>'] }, rec.handler);

    const first = await bus.publish({ id: 'evt_dup', subject: 'events.test.esim.released', payload: payload(1) });
    const second = await bus.publish({ id: 'evt_dup', subject: 'events.test.esim.released', payload: payload(2) });
    // Deliveries to one durable are in order, so once the sentinel is in, any copy would be too.
    await bus.publish({ id: 'evt_sentinel', subject: 'events.test.esim.released', payload: payload(3) });

    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    await waitFor('the sentinel', () => rec.ids().includes('evt_sentinel'));
    expect(rec.ids()).toEqual(['evt_dup', 'evt_sentinel']);
    expect(rec.received[0]?.payload).toEqual(payload(1));
  });

  it('matches filter subjects with * (one token) and > (the rest), one or several filters', async () => {
    await freshBus();
    const star = recorder();
    const tail = recorder();
    const several = recorder();
    await subscribe({ durable: 'star', filterSubjects: ['events.test.esim.*'] }, star.handler);
    await subscribe({ durable: 'tail', filterSubjects: ['events.*.api_key.>'] }, tail.handler);
    await subscribe({ durable: 'several', filterSubjects: ['events.live.>', 'events.test.esim.expired'] }, several.handler);

    const subjects = [
      'events.test.esim.released',
      'events.test.esim.usage.threshold',
      'events.live.esim.released',
      'events.test.api_key.issued',
      'events.live.api_key.first_used',
      'events.test.esim.expired',
    ];
    for (const [i, subject] of subjects.entries()) {
      await bus.publish({ id: `evt_${i}`, subject, payload: payload(i) });
    }
    // One sentinel per durable, published last: in-order delivery means everything before it is in.
    await bus.publish({ id: 'end_star', subject: 'events.test.esim.end', payload: null });
    await bus.publish({ id: 'end_tail', subject: 'events.test.api_key.end', payload: null });
    await bus.publish({ id: 'end_several', subject: 'events.live.end', payload: null });
    await waitFor('the sentinels', () => star.ids().includes('end_star') && tail.ids().includes('end_tail') && several.ids().includes('end_several'));

    expect(star.received.map((m) => m.subject)).toEqual(['events.test.esim.released', 'events.test.esim.expired', 'events.test.esim.end']);
    expect(tail.received.map((m) => m.subject)).toEqual(['events.test.api_key.issued', 'events.live.api_key.first_used', 'events.test.api_key.end']);
    expect(several.received.map((m) => m.subject)).toEqual([
      'events.live.esim.released',
      'events.live.api_key.first_used',
      'events.test.esim.expired',
      'events.live.end',
    ]);
  });

  it('resumes a durable where it stopped: only new messages, none lost, none acked redelivered', async () => {
    await freshBus();
    const opts = { durable: 'resume', filterSubjects: ['events.test.>'] };
    const before = recorder();
    const first = await subscribe(opts, before.handler);
    for (const n of [1, 2, 3]) await bus.publish({ id: `evt_${n}`, subject: 'events.test.esim.released', payload: payload(n) });
    await waitFor('the first three', () => before.received.length === 3);
    await first.stop();

    // Published while nobody listens: they wait in the durable.
    for (const n of [4, 5]) await bus.publish({ id: `evt_${n}`, subject: 'events.test.esim.released', payload: payload(n) });
    const after = recorder();
    await subscribe(opts, after.handler);
    await bus.publish({ id: 'evt_6', subject: 'events.test.esim.released', payload: payload(6) });

    await waitFor('the last one', () => after.ids().includes('evt_6'));
    expect(before.ids()).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(after.ids()).toEqual(['evt_4', 'evt_5', 'evt_6']);
    expect(after.received.every((m) => m.deliveryCount === 1)).toBe(true);
  });

  it('redelivers a message whose handler failed, with a growing delivery count, until it is acked', async () => {
    await freshBus();
    const opts = { durable: 'retry', filterSubjects: ['events.test.>'], maxDeliver: 5, backoffMs: [5, 10] };
    const rec = recorder((msg) => msg.id === 'evt_flaky' && msg.deliveryCount < 3);
    const sub = await subscribe(opts, rec.handler);

    await bus.publish({ id: 'evt_flaky', subject: 'events.test.esim.released', payload: payload(1) });
    await waitFor('the successful third delivery', () => rec.received.filter((m) => m.id === 'evt_flaky').length === 3);
    expect(rec.received.map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
    expect(rec.received.every((m) => JSON.stringify(m.payload) === JSON.stringify(payload(1)))).toBe(true);

    // Acked: a resubscribed durable gets the next message and never the acked one again.
    await sub.stop();
    const after = recorder();
    await subscribe(opts, after.handler);
    await bus.publish({ id: 'evt_next', subject: 'events.test.esim.released', payload: payload(2) });
    await waitFor('the next message', () => after.ids().includes('evt_next'));
    expect(after.ids()).toEqual(['evt_next']);
  });

  it('dead-letters a message after maxDeliver failures and goes on with the next one', async () => {
    await freshBus();
    const durable = 'dlq';
    const rec = recorder((msg) => msg.id === 'evt_poison');
    await subscribe({ durable, filterSubjects: ['events.test.>'], maxDeliver: 3, backoffMs: [5] }, rec.handler);
    const dead = recorder();
    await subscribe({ durable: 'dlq_reader', filterSubjects: [deadLetterSubject(durable, 'events.test.esim.released')] }, dead.handler);

    await bus.publish({
      id: 'evt_poison',
      subject: 'events.test.esim.released',
      payload: payload(7),
      headers: { 'x-request-id': 'req_poison' },
    });
    await bus.publish({ id: 'evt_fine', subject: 'events.test.esim.released', payload: payload(8) });

    await waitFor('the dead letter', () => dead.received.length === 1);
    const [letter] = dead.received;
    expect(letter).toMatchObject({
      id: 'evt_poison',
      subject: 'dead.dlq.events.test.esim.released',
      payload: payload(7),
    });
    expect(letter?.headers['x-request-id']).toBe('req_poison');
    expect(letter?.headers[DEAD_LETTER_HEADERS.error]).toContain('refused evt_poison');
    expect(letter?.headers[DEAD_LETTER_HEADERS.deliveries]).toBe('3');
    expect(rec.received.filter((m) => m.id === 'evt_poison').map((m) => m.deliveryCount)).toEqual([1, 2, 3]);

    // The consumer is not blocked by the poison message.
    await bus.publish({ id: 'evt_later', subject: 'events.test.esim.released', payload: payload(9) });
    await waitFor('the later message', () => rec.ids().includes('evt_later'));
    expect(rec.ids().filter((id) => id !== 'evt_poison')).toEqual(['evt_fine', 'evt_later']);
  });

  it('delivers to one durable one message at a time, in order, and keeps durables independent', async () => {
    await freshBus();
    const slow = gated();
    const order = slow.started;
    await subscribe({ durable: 'slow', filterSubjects: ['events.test.>'] }, slow.handler);
    const fast = recorder();
    await subscribe({ durable: 'fast', filterSubjects: ['events.test.>'] }, fast.handler);

    for (const n of [1, 2, 3, 4]) await bus.publish({ id: `evt_${n}`, subject: 'events.test.esim.released', payload: payload(n) });

    // The fast durable gets everything while the slow one is still stuck on its first message.
    await waitFor('the fast durable', () => fast.received.length === 4);
    expect(order).toEqual(['evt_1']);
    slow.release();
    await waitFor('the slow durable', () => order.length === 4 && slow.active() === 0);
    expect(order).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4']);
    expect(slow.maxActive()).toBe(1);
  });

  it('with concurrency, starts handlers for pulled messages in order, at most that many at once, and acks them all', async () => {
    await freshBus();
    const wide = gated();
    const started = wide.started;
    const sub = await bus.subscribe({ durable: 'wide', filterSubjects: ['events.test.>'], concurrency: 3 }, wide.handler);
    for (const n of [1, 2, 3, 4, 5]) await bus.publish({ id: `evt_${n}`, subject: 'events.test.esim.released', payload: payload(n) });
    const expected = 3;
    await waitFor('handlers started', () => started.length === expected);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toEqual(['evt_1', 'evt_2', 'evt_3'].slice(0, expected));
    wide.release();
    await waitFor('every message handled', () => started.length === 5 && wide.active() === 0);
    expect(started).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    expect(wide.maxActive()).toBe(expected);
    await sub.stop();
    // All acked: the durable resumed gets nothing again.
    const again = recorder();
    await subscribe({ durable: 'wide', filterSubjects: ['events.test.>'] }, again.handler);
    await bus.publish({ id: 'evt_6', subject: 'events.test.esim.released', payload: payload(6) });
    await waitFor('the next message', () => again.received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(again.ids()).toEqual(['evt_6']);
  });

  it('with concurrency, stop waits for every handler under way, and their messages are acked', async () => {
    await freshBus();
    const wide = gated();
    const sub = await bus.subscribe({ durable: 'stopping', filterSubjects: ['events.test.>'], concurrency: 3 }, wide.handler);
    for (const n of [1, 2, 3]) await bus.publish({ id: `evt_${n}`, subject: 'events.test.esim.released', payload: payload(n) });
    await waitFor('a handler started', () => wide.started.length >= 1);
    let stopped = false;
    const stopping = sub.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(stopped).toBe(false);
    wide.release();
    await stopping;
    expect(wide.active()).toBe(0);
    // What was handled was acked: resumed, the durable never gets it again.
    const again = recorder();
    await subscribe({ durable: 'stopping', filterSubjects: ['events.test.>'] }, again.handler);
    await bus.publish({ id: 'evt_4', subject: 'events.test.esim.released', payload: payload(4) });
    await waitFor('the next message', () => again.ids().includes('evt_4'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(again.ids().filter((id) => wide.started.includes(id))).toEqual([]);
  });

  it('with concurrency, a failed message comes back while the others go on, and each is acked once', async () => {
    await freshBus();
    const opts = { durable: 'wide-retry', filterSubjects: ['events.test.>'], maxDeliver: 5, backoffMs: [5], concurrency: 4 };
    const rec = recorder((msg) => msg.id === 'evt_3' && msg.deliveryCount < 3);
    await subscribe(opts, rec.handler);
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8]) await bus.publish({ id: `evt_${n}`, subject: 'events.test.esim.released', payload: payload(n) });
    await waitFor(
      'every message acked, the flaky one on its third delivery',
      () => rec.received.filter((m) => m.id === 'evt_3').length === 3 && new Set(rec.ids()).size === 8,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(rec.ids().filter((id) => id !== 'evt_3')).toEqual(['evt_1', 'evt_2', 'evt_4', 'evt_5', 'evt_6', 'evt_7', 'evt_8']);
    expect(rec.received.filter((m) => m.id === 'evt_3').map((m) => m.deliveryCount)).toEqual([1, 2, 3]);
  });

  it('refuses subjects outside events./dead., wildcards in publish, and mixed filter spaces', async () => {
    await freshBus();
    await expect(bus.publish({ id: 'x', subject: 'orders.created', payload: null })).rejects.toThrow();
    await expect(bus.publish({ id: 'x', subject: 'events.test.*', payload: null })).rejects.toThrow();
    await expect(bus.publish({ id: '', subject: 'events.test.a', payload: null })).rejects.toThrow();
    await expect(bus.subscribe({ durable: 'mixed', filterSubjects: ['events.>', 'dead.>'] }, () => Promise.resolve())).rejects.toThrow();
    await expect(bus.subscribe({ durable: 'bad.name', filterSubjects: ['events.>'] }, () => Promise.resolve())).rejects.toThrow();
  });

  describe('trace context', () => {
    const contextManager = new AsyncLocalStorageContextManager();
    beforeAll(() => {
      context.setGlobalContextManager(contextManager.enable());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    });
    afterAll(() => {
      context.disable();
      propagation.disable();
    });

    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const spanId = '00f067aa0ba902b7';

    it('runs the handler inside the context of a traceparent given by the publisher', async () => {
      await freshBus();
      const seen: Array<{ header: string | undefined; active: string | undefined }> = [];
      await subscribe({ durable: 'traced', filterSubjects: ['events.test.>'] }, (msg) => {
        seen.push({ header: msg.headers.traceparent, active: trace.getSpanContext(context.active())?.traceId });
        return Promise.resolve();
      });

      await bus.publish({
        id: 'evt_traced',
        subject: 'events.test.esim.released',
        payload: null,
        headers: { traceparent: `00-${traceId}-${spanId}-01` },
      });

      await waitFor('the traced message', () => seen.length === 1);
      // The caller's traceparent travels unchanged, and the handler runs in that trace.
      expect(seen).toEqual([{ header: `00-${traceId}-${spanId}-01`, active: traceId }]);
    });

    it('injects the active context when the publisher gives no traceparent', async () => {
      await freshBus();
      const seen: Array<{ header: string | undefined; active: string | undefined }> = [];
      await subscribe({ durable: 'injected', filterSubjects: ['events.test.>'] }, (msg) => {
        seen.push({ header: msg.headers.traceparent, active: trace.getSpanContext(context.active())?.traceId });
        return Promise.resolve();
      });

      const active = trace.setSpanContext(ROOT_CONTEXT, { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: false });
      await context.with(active, () => bus.publish({ id: 'evt_injected', subject: 'events.test.esim.released', payload: null }));

      await waitFor('the injected message', () => seen.length === 1);
      expect(seen[0]?.header).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(seen[0]?.active).toBe(traceId);
    });
  });

  it('refuses to publish and ping after close', async () => {
    const closing = await createTestBus({ kind });
    await closing.close();
    await expect(closing.ping()).rejects.toThrow();
    await expect(closing.publish({ id: 'late', subject: 'events.test.a', payload: null })).rejects.toThrow();
    // afterEach closes `bus`; give it one.
    await freshBus();
  });
});

describe('createBus', () => {
  it('gives the in-process bus when no NATS URL is configured (embedded mode)', async () => {
    const bus = await createBus({});
    expect(bus.kind).toBe('memory');
    await bus.close();
  });
});

describe('memory bus duplicate window', () => {
  it('accepts an id again once it has left the window', async () => {
    // A zero window forgets every id at once: the deterministic stand-in for "two minutes later".
    const bus = createMemoryBus({ duplicateWindowMs: 0 });
    const first = await bus.publish({ id: 'evt_again', subject: 'events.test.a', payload: 1 });
    const second = await bus.publish({ id: 'evt_again', subject: 'events.test.a', payload: 2 });
    expect([first.duplicate, second.duplicate]).toEqual([false, false]);
    await bus.close();
  });
});

// Two deployments on one NATS server, each with its own stream, subject prefix and durable prefix
// (the NATS_STREAM, NATS_SUBJECT_PREFIX and NATS_DURABLE_PREFIX settings).
describe.each(adapters.filter((kind) => kind === 'jetstream'))('two deployments sharing one NATS server (%s)', () => {
  it('never see, nor consume, each other’s events', async () => {
    const { randomBytes } = await import('node:crypto');
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const url = process.env.NATS_URL ?? '';
    const unique = randomBytes(4).toString('hex');
    const names = ['blue', 'green'].map((colour) => ({
      streamName: `T${unique}_${colour.toUpperCase()}`,
      subjectPrefix: `t${unique}${colour}.`,
      durablePrefix: `${colour}-`,
    }));
    const buses = await Promise.all(names.map((n) => createBus({ natsUrl: url, ...n })));
    try {
      const received = buses.map(() => recorder());
      // Both use the same durable name in code, as two copies of notifications would.
      const subs = await Promise.all(buses.map((b, i) => b.subscribe({ durable: 'notifications', filterSubjects: ['events.>'] }, received[i]!.handler)));
      await buses[0]!.publish({ id: `evt_blue_${unique}`, subject: 'events.test.esim.released', payload: 1 });
      await buses[1]!.publish({ id: `evt_green_${unique}`, subject: 'events.test.esim.released', payload: 2 });
      await waitFor('each deployment’s event', () => received.every((r) => r.received.length >= 1));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received[0]!.ids()).toEqual([`evt_blue_${unique}`]);
      expect(received[1]!.ids()).toEqual([`evt_green_${unique}`]);
      const nc = await connect({ servers: url });
      try {
        const jsm = await jetstreamManager(nc);
        expect((await jsm.consumers.info(names[0]!.streamName, 'blue-notifications')).name).toBe('blue-notifications');
        expect((await jsm.consumers.info(names[1]!.streamName, 'green-notifications')).name).toBe('green-notifications');
      } finally {
        await nc.close();
      }
      await Promise.all(subs.map((s) => s.stop()));
    } finally {
      await Promise.all(buses.map((b) => b.close()));
      const nc = await connect({ servers: url });
      const jsm = await jetstreamManager(nc);
      for (const n of names) for (const stream of [n.streamName, `${n.streamName}_DEAD`]) await jsm.streams.delete(stream).catch(() => false);
      await nc.close();
    }
  });
});

describe.each(adapters)('notices (%s)', (kind) => {
  it('reach every listener of the subject, and none of another subject', async () => {
    const a = await createTestBus({ kind });
    try {
      const heard: string[] = [];
      const one = await a.listen<{ n: number }>('control.keys', (p) => heard.push(`one:${p.n}`));
      const two = await a.listen<{ n: number }>('control.keys', (p) => heard.push(`two:${p.n}`));
      const other = await a.listen<{ n: number }>('control.other', (p) => heard.push(`other:${p.n}`));
      await a.notify('control.keys', { n: 1 });
      await waitFor('both listeners', () => heard.length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard.sort()).toEqual(['one:1', 'two:1']);
      await one.stop();
      await a.notify('control.keys', { n: 2 });
      await waitFor('the remaining listener', () => heard.length >= 3);
      expect(heard).toContain('two:2');
      expect(heard).not.toContain('one:2');
      await Promise.all([two.stop(), other.stop()]);
    } finally {
      await a.close();
    }
  });
});

describe('memory bus retention', () => {
  it('keeps a bounded log once every durable has its messages, and a late durable starts at the oldest kept', async () => {
    const bus = createMemoryBus({ retainMessages: 5 });
    const seen: string[] = [];
    await bus.subscribe({ durable: 'early', filterSubjects: ['events.>'] }, (msg) => {
      seen.push(msg.id);
      return Promise.resolve();
    });
    for (let i = 0; i < 20; i += 1) await bus.publish({ id: `m${i}`, subject: 'events.test.a', payload: i });
    await waitFor('the early durable', () => seen.length === 20);
    const late: string[] = [];
    await bus.subscribe({ durable: 'late', filterSubjects: ['events.>'] }, (msg) => {
      late.push(msg.id);
      return Promise.resolve();
    });
    await waitFor('the late durable', () => late.length >= 5);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(late).toEqual(['m15', 'm16', 'm17', 'm18', 'm19']);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));
    await bus.close();
  });
});
