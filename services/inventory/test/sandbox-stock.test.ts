import type { SuppliedProfile } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { createSandboxStock } from '../src/clients/sandbox-stock.ts';
import { newCaller } from './support.ts';

const caller = newCaller('test');
let serial = 0;
const profile = (): SuppliedProfile => ({
  iccid: `89000${String((serial += 1)).padStart(14, '0')}`,
  smdp_address: 'sandbox.smdp.invalid',
  matching_id: `TEST-${serial}`,
});

/** A stock over a scripted catalogue: each call answers the next outcome (a count, or a failure). */
function scripted(outcomes: (number | Error)[], block = 10) {
  const asked: { bundle: string; count: number }[] = [];
  const failures: unknown[] = [];
  const stock = createSandboxStock({
    block,
    fetch: (_caller, bundle, count) => {
      asked.push({ bundle, count });
      const outcome = outcomes.shift() ?? count;
      return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(Array.from({ length: outcome }, profile));
    },
    onTopUpFailed: (error) => failures.push(error),
  });
  return { stock, asked, failures };
}

describe('the sandbox profile stock', () => {
  it('shares one top-up between concurrent orders and tops up again under half a block', async () => {
    const { stock, asked } = scripted([], 20);
    const taken = await Promise.all([stock.take(caller, 'b', 3), stock.take(caller, 'b', 3)]);
    expect(asked).toEqual([{ bundle: 'b', count: 20 }]);
    expect(new Set(taken.flat().map((p) => p.iccid)).size).toBe(6);
    // 14 left, then 9: under half of 20, topped up in the background.
    await stock.take(caller, 'b', 5);
    expect(asked).toHaveLength(2);
    const rest = await stock.take(caller, 'b', 10);
    expect(new Set([...taken.flat(), ...rest].map((p) => p.iccid)).size).toBe(16);
  });

  it('keeps each bundle on its own shelf', async () => {
    const { stock, asked } = scripted([]);
    await stock.take(caller, 'a', 1);
    await stock.take(caller, 'b', 1);
    expect(asked.map((a) => a.bundle)).toEqual(['a', 'b']);
  });

  it('fails an order waiting on a failed top-up, and asks again for the next one', async () => {
    const { stock, asked } = scripted([new Error('catalogue could not be reached')]);
    await expect(stock.take(caller, 'b', 1)).rejects.toThrow('catalogue could not be reached');
    expect(await stock.take(caller, 'b', 1)).toHaveLength(1);
    expect(asked).toHaveLength(2);
  });

  it('reports a failed background top-up without failing anyone', async () => {
    const { stock, failures } = scripted([10, new Error('down')]);
    expect(await stock.take(caller, 'b', 8)).toHaveLength(8);
    await new Promise((resolve) => setImmediate(resolve));
    expect(failures).toHaveLength(1);
    expect(await stock.take(caller, 'b', 2)).toHaveLength(2);
  });

  it('gives an order what there is when catalogue keeps delivering too few, after a bounded wait', async () => {
    const { stock, asked } = scripted([0, 0, 0, 0]);
    expect(await stock.take(caller, 'b', 2)).toEqual([]);
    expect(asked.length).toBeLessThanOrEqual(4);
  });
});
