import { afterEach, describe, expect, test } from 'vitest';
import { startWorkPool, type WorkPool } from '../src/work/pool.ts';

const pools: WorkPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.stop();
});

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 400 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

/** A queue of named items; each is worked until the test releases it (or at once if it is quick). */
function queue(names: string[], quick: (name: string) => boolean) {
  const due = [...names];
  const held = new Map<string, () => void>();
  const done: string[] = [];
  let atOnce = 0;
  let mostAtOnce = 0;
  const claims: number[] = [];
  return {
    due,
    held,
    done,
    mostAtOnce: () => mostAtOnce,
    claims,
    claim: (free: number) => {
      claims.push(free);
      const items = due.splice(0, free);
      return Promise.resolve({ items, more: due.length > 0 });
    },
    work: async (name: string) => {
      atOnce += 1;
      mostAtOnce = Math.max(mostAtOnce, atOnce);
      try {
        if (!quick(name)) await new Promise<void>((resolve) => held.set(name, resolve));
        else await new Promise((resolve) => setTimeout(resolve, 2));
        done.push(name);
      } finally {
        atOnce -= 1;
      }
    },
  };
}

describe('work pool', () => {
  test('a slow item holds its own slot only: the others complete and their slots are claimed again at once', async () => {
    const names = ['slow', ...Array.from({ length: 20 }, (_, i) => `quick-${i}`)];
    const q = queue(names, (name) => name !== 'slow');
    const pool = startWorkPool({ name: 'test', size: 3, intervalMs: 60_000, claim: q.claim, work: q.work });
    pools.push(pool);
    pool.wake();
    // Twenty quick items go through two slots while the slow one keeps the third.
    await until('every quick item', () => q.done.length === 20);
    expect(q.done).not.toContain('slow');
    expect(pool.busy()).toBe(1);
    expect(q.mostAtOnce()).toBe(3);
    // Each claim asked only for the slots that were free.
    expect(Math.max(...q.claims)).toBe(3);
    q.held.get('slow')?.();
    await until('the slow item', () => q.done.includes('slow'));
    expect(pool.busy()).toBe(0);
  });

  test('never works more than its size at once', async () => {
    const q = queue(
      Array.from({ length: 12 }, (_, i) => `held-${i}`),
      () => false,
    );
    const pool = startWorkPool({ name: 'test', size: 4, intervalMs: 60_000, claim: q.claim, work: q.work });
    pools.push(pool);
    pool.wake();
    await until('four items under way', () => q.held.size === 4);
    pool.wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(q.held.size).toBe(4);
    expect(q.due).toHaveLength(8);
    for (const release of q.held.values()) release();
    await until('the next four', () => q.held.size === 8);
    expect(q.mostAtOnce()).toBe(4);
    // The rest, released as they come, so the pool can stop.
    await until('every item', () => {
      for (const release of q.held.values()) release();
      return q.done.length === 12;
    });
    expect(q.mostAtOnce()).toBe(4);
  });

  test('an item that fails is logged and frees its slot; stop waits for the items under way', async () => {
    const errors: unknown[] = [];
    let release: () => void = () => undefined;
    const items = ['fails', 'held'];
    const pool = startWorkPool({
      name: 'test',
      size: 1,
      intervalMs: 60_000,
      logger: { error: (fields: unknown) => errors.push(fields), info: () => undefined },
      claim: (free) => Promise.resolve({ items: items.splice(0, free), more: items.length > 0 }),
      work: (item) => (item === 'fails' ? Promise.reject(new Error('boom')) : new Promise<void>((resolve) => (release = resolve))),
    });
    pool.wake();
    await until('the held item', () => pool.busy() === 1 && items.length === 0);
    expect(errors).toHaveLength(1);
    let stopped = false;
    const stopping = pool.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(pool.busy()).toBe(0);
  });

  test('runOnce claims until nothing is due and waits for the work', async () => {
    const q = queue(
      Array.from({ length: 7 }, (_, i) => `item-${i}`),
      () => true,
    );
    const pool = startWorkPool({ name: 'test', size: 2, intervalMs: 60_000, claim: q.claim, work: q.work });
    pools.push(pool);
    expect(await pool.runOnce()).toBe(7);
    expect(q.done).toHaveLength(7);
  });
});

describe('work pool wakes', () => {
  test('an item that ends claims again only when work was left for want of room', async () => {
    let claims = 0;
    let more = false;
    const pool = startWorkPool({
      name: 'test',
      size: 4,
      intervalMs: 60_000,
      claim: () => {
        claims += 1;
        const first = claims === 1;
        return Promise.resolve({ items: first ? ['one', 'two'] : [], more: first && more });
      },
      work: () => new Promise<void>((resolve) => setTimeout(resolve, 5)),
    });
    pools.push(pool);
    pool.wake();
    await until('the items done', () => claims === 1 && pool.busy() === 0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Nothing was left: the two items ending made no claim.
    expect(claims).toBe(1);

    more = true;
    claims = 0;
    pool.wake();
    await until('a claim after the items ended', () => claims >= 2);
  });
});
