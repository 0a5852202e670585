import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, test } from 'vitest';
import { startPoller, type Poller } from '../src/work/poller.ts';

const pollers: Poller[] = [];
afterEach(async () => {
  for (const poller of pollers.splice(0)) await poller.stop();
});

/** A poller whose passes record when they began; the idle interval is far beyond any test. */
function recordingPoller(wakeGapMs?: number) {
  const starts: number[] = [];
  const poller = startPoller({
    name: 'test',
    intervalMs: 60_000,
    ...(wakeGapMs !== undefined && { wakeGapMs }),
    pass: async () => {
      starts.push(performance.now());
      await new Promise((resolve) => setTimeout(resolve, 2));
      return { done: 1, more: false };
    },
  });
  pollers.push(poller);
  return { poller, starts };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('poller wake', () => {
  test('without a gap, a wake runs a pass at once, and wakes during a pass make one more', async () => {
    const { poller, starts } = recordingPoller();
    poller.wake();
    await until(() => starts.length === 1);
    for (let i = 0; i < 5; i += 1) poller.wake();
    await until(() => starts.length === 2);
    await sleep(30);
    expect(starts).toHaveLength(2);
  });

  test('with a gap, wakes in quick succession are one pass, no sooner than the gap after the last', async () => {
    const { poller, starts } = recordingPoller(80);
    const woken = performance.now();
    poller.wake();
    await until(() => starts.length === 1);
    // A quiet poller answers its first wake at once.
    expect((starts[0] ?? Infinity) - woken).toBeLessThan(60);
    for (let i = 0; i < 5; i += 1) {
      poller.wake();
      await sleep(5);
    }
    await until(() => starts.length === 2);
    await sleep(120);
    expect(starts).toHaveLength(2);
    expect((starts[1] ?? 0) - (starts[0] ?? 0)).toBeGreaterThanOrEqual(78);
  });

  test('with a gap, a wake after a quiet spell longer than the gap still runs at once', async () => {
    const { poller, starts } = recordingPoller(40);
    poller.wake();
    await until(() => starts.length === 1);
    await sleep(100);
    const woken = performance.now();
    poller.wake();
    await until(() => starts.length === 2);
    expect((starts[1] ?? Infinity) - woken).toBeLessThan(30);
  });

  test('runOnce is not held back by the gap', async () => {
    const { poller, starts } = recordingPoller(10_000);
    poller.wake();
    await until(() => starts.length === 1);
    expect(await poller.runOnce()).toBe(1);
    expect(starts).toHaveLength(2);
  });
});
