import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createBatcher, groupCommit } from '../src/work/batcher.ts';

const spans = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));
});
afterAll(() => {
  trace.disable();
  context.disable();
});
const tracer = trace.getTracer('batcher-test');

/** A batcher that records its batches; each runs until `release` is called when `hold` is set. */
function recording(max: number, hold = false) {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const batcher = createBatcher<number, number>({
    max,
    run: async (items) => {
      batches.push(items);
      if (hold) await new Promise<void>((resolve) => releases.push(resolve));
      return items.map((item) => (item < 0 ? { status: 'rejected', reason: new Error(`bad ${item}`) } : { status: 'fulfilled', value: item * 10 }));
    },
  });
  return { batcher, batches, releases };
}

describe('createBatcher', () => {
  test('the calls of one turn go out as one batch, each with its own result', async () => {
    const { batcher, batches } = recording(10);
    expect(await Promise.all([1, 2, 3].map((n) => batcher.add(n)))).toEqual([10, 20, 30]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  test('calls made while a batch runs wait for it and go out together next, at most `max` at a time', async () => {
    const { batcher, batches, releases } = recording(2, true);
    const first = batcher.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => batcher.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    // Nothing new starts while the first batch runs.
    expect(batches).toEqual([[1]]);
    releases.shift()?.();
    expect(await first).toBe(10);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1], [2, 3]]);
    releases.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
    releases.shift()?.();
    expect(await Promise.all(later)).toEqual([20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3], [4]]);
  });

  test('an item fails alone; a batch that throws fails each of its items, and the next batch still runs', async () => {
    const { batcher } = recording(10);
    const outcomes = await Promise.allSettled([batcher.add(1), batcher.add(-1), batcher.add(2)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);

    let calls = 0;
    const flaky = createBatcher<number, number>({
      max: 10,
      run: (items) => {
        calls += 1;
        if (calls === 1) return Promise.reject(new Error('database down'));
        return Promise.resolve(items.map((value) => ({ status: 'fulfilled' as const, value })));
      },
    });
    const failed = await Promise.allSettled([flaky.add(1), flaky.add(2)]);
    expect(failed.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(await flaky.add(3)).toBe(3);
  });

  test("each batch runs in its first item's trace, in a span linked to the other items' traces; a lone item runs in its own", async () => {
    spans.reset();
    const seen: (string | undefined)[] = [];
    const releases: (() => void)[] = [];
    const batcher = createBatcher<string, string>({
      name: 'test batch',
      max: 10,
      run: async (items) => {
        seen.push(trace.getActiveSpan()?.spanContext().traceId);
        if (items[0] === 'a') await new Promise<void>((resolve) => releases.push(resolve));
        return items.map((value) => ({ status: 'fulfilled' as const, value }));
      },
    });
    const inSpan = (name: string) =>
      tracer.startActiveSpan(name, (span) => {
        const done = batcher.add(name).finally(() => span.end());
        return { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId, done };
      });
    const a = inSpan('a');
    await new Promise((resolve) => setImmediate(resolve));
    // b, c and d arrive while a's batch runs; the loop that goes on to send them was a's.
    const [b, c, d] = [inSpan('b'), inSpan('c'), inSpan('d')];
    releases.shift()?.();
    await Promise.all([a.done, b.done, c.done, d.done]);
    expect(seen).toEqual([a.traceId, b.traceId]);
    const batchSpan = spans.getFinishedSpans().find((span) => span.name === 'test batch');
    expect(batchSpan?.spanContext().traceId).toBe(b.traceId);
    expect(batchSpan?.parentSpanContext?.spanId).toBe(b.spanId);
    expect(batchSpan?.attributes['batch.size']).toBe(3);
    expect(batchSpan?.links.map((link) => link.context.traceId)).toEqual([c.traceId, d.traceId]);
    // The lone first item made no batch span.
    expect(spans.getFinishedSpans().filter((span) => span.name === 'test batch')).toHaveLength(1);
  });
});

describe('groupCommit', () => {
  /** A store of unique keys: `many` writes distinct keys at once and leaves those already there undecided. */
  function keyed(options: { failMany?: boolean } = {}) {
    const stored = new Map<string, string>();
    const calls: string[] = [];
    const commit = groupCommit<{ key: string; value: string }, string>({
      name: 'test commit',
      max: 10,
      keyOf: (item) => item.key,
      one: (item) => {
        calls.push(`one ${item.key}`);
        const existing = stored.get(item.key);
        if (existing !== undefined) return Promise.resolve(`had ${existing}`);
        stored.set(item.key, item.value);
        return Promise.resolve('new');
      },
      many: (items) => {
        calls.push(`many ${items.map((item) => item.key).join(',')}`);
        if (options.failMany) return Promise.reject(new Error('deadlock detected'));
        const keys = items.map((item) => item.key);
        expect(new Set(keys).size).toBe(keys.length);
        return Promise.resolve(
          items.map((item) => {
            if (stored.has(item.key)) return undefined;
            stored.set(item.key, item.value);
            return 'new';
          }),
        );
      },
    });
    return { commit, calls, stored };
  }

  test('distinct keys go out in one statement; a key twice in a batch and an undecided key are settled alone after it, in order', async () => {
    const { commit, calls, stored } = keyed();
    stored.set('old', 'x');
    const results = await Promise.all(
      [
        { key: 'k1', value: '1' },
        { key: 'old', value: '2' },
        { key: 'k1', value: '3' },
        { key: 'k2', value: '4' },
      ].map((item) => commit.add(item)),
    );
    expect(results).toEqual(['new', 'had x', 'had 1', 'new']);
    expect(calls).toEqual(['many k1,old,k2', 'one old', 'one k1']);
  });

  test('a lone item goes out alone; a failed statement is settled item by item', async () => {
    const { commit, calls } = keyed({ failMany: true });
    expect(await commit.add({ key: 'solo', value: '1' })).toBe('new');
    expect(await Promise.all([commit.add({ key: 'a', value: '1' }), commit.add({ key: 'b', value: '2' })])).toEqual(['new', 'new']);
    expect(calls).toEqual(['one solo', 'many a,b', 'one a', 'one b']);
  });
});
