import { describe, expect, test } from 'vitest';
import { createBatcher } from '../src/work/batcher.ts';

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
  test("the calls of one turn go out as one batch, each with its own result", async () => {
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
});
