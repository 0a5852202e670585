import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { liveChildren } from './children.ts';
import type { Window } from './cpu-profile.ts';
import { load, type LoadOptions, type LoadResult } from './load.ts';

// What every part of the bench shares: its options, the clean-up list, the hello-world baseline
// and the rows printed at the end.

export const PROFILE_TARGETS = ['gateway', 'catalogue', 'inventory', 'notifications', 'sandbox-simulator', 'embedded'];
const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'profile-out': { type: 'string' },
    only: { type: 'string' },
    verbose: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});
if (args.profile !== undefined && !PROFILE_TARGETS.includes(args.profile)) {
  console.error(`--profile takes one of ${PROFILE_TARGETS.join(', ')}`);
  process.exit(2);
}
if (args.only !== undefined && !['distributed', 'embedded'].includes(args.only)) {
  console.error('--only takes distributed or embedded');
  process.exit(2);
}
/** One form only (while working on it); the full run measures both. */
export const only = args.only as 'distributed' | 'embedded' | undefined;
export const quick = args.quick || ['1', 'true', 'yes'].includes((process.env.BENCH_QUICK ?? '').toLowerCase());
export const profileTarget = args.profile;
/** Where the profile's .cpuprofile and .folded (flame-graph input) files are kept; else deleted after the summary. */
export const profileOut = args['profile-out'];
export const verbose = args.verbose;

export const SECONDS = quick ? 3 : 10;
export const WARM_SECONDS = quick ? 1 : 2;
/** The hello-world is measured beside each figure it divides, so a change in the machine's load shows in both. */
export const HELLO_SECONDS = quick ? 2 : 5;
/** Reads are measured at 20 connections; orders at 10, as an integrator's suite of parallel workers sends them. */
export const CONNECTIONS = 20;
export const ORDER_CONNECTIONS = 10;
/** What an integrator's suite does to the server before it buys: this many reads (issue 33: 100 k+). */
export const GETS_BEFORE_ORDERS = quick ? 20_000 : 100_000;
/** The webhook figure: this many orders, this many at a time, right after the order burst. */
export const WEBHOOK_ORDERS = quick ? 100 : 200;
export const WEBHOOK_ORDERS_AT_ONCE = 5;
/**
 * The webhook figure follows a burst of at least this many orders (issue 33: 1,000+): where the
 * orders figure made fewer in its seconds, the rest are sent at once before the webhooks are timed.
 */
export const BURST_BEFORE_WEBHOOKS = quick ? 200 : 1_000;
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.NATS_URL || 'nats://127.0.0.1:4222';
// The distributed form's shared rate-limit store where the gateway has one (as in docker-compose).
export const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
// The bench measures the service, not the per-key budget.
export const RATE_LIMIT = '1000000000';
export const ORDER = JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1 });
export const BUNDLES = '/v1/esim/bundles?countries=FR';

export const log = (line: string) => console.log(`  · ${line}`);
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// Clean-up on every way out: an error, Ctrl-C, or the end.

const cleanups: (() => Promise<unknown>)[] = [];
/** Registers an async clean-up; the function returned runs it (once) and can be awaited. */
export function onCleanup(fn: () => Promise<unknown>): () => Promise<unknown> {
  let done: Promise<unknown> | undefined;
  const once = () => (done ??= fn().catch((error: unknown) => console.error(`clean-up failed: ${String(error)}`)));
  cleanups.push(once);
  return once;
}
export async function cleanAll(): Promise<void> {
  for (const fn of [...cleanups].reverse()) await fn();
  for (const child of liveChildren()) child.kill('SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// The profile: the part of the profiled process's life that is summarised (its load, not its
// start-up or shutdown).

export const profileWindow: Window = { from: 0, to: Number.POSITIVE_INFINITY };

// ---------------------------------------------------------------------------------------------
// Figures against the hello-world.

let helloUrl = '';
/** Every hello-world measurement of the run, in req/s. */
export const hellos: number[] = [];
export function useHelloWorld(url: string): void {
  helloUrl = url;
}
const helloWorld = async () => {
  const rps = (await load({ url: helloUrl, path: '/', connections: CONNECTIONS, durationSeconds: HELLO_SECONDS })).rps;
  hellos.push(rps);
  return rps;
};

export interface MeasureOptions {
  /** CPU of the metered processes during the measured run. */
  meter?: { start(): () => Record<string, number> };
  /**
   * The hello-world after the figure rather than before: for a figure that must follow the load
   * before it with no pause (the pause would let the server catch up, as an integrator's suite
   * never does).
   */
  helloAfter?: boolean;
  /** Skip the warm-up (the load before is the warm-up). */
  cold?: boolean;
}

/**
 * A warm-up run (not recorded), the hello-world, then the measured run (or the measured run, then
 * the hello-world, with `helloAfter`).
 */
export async function measure(
  what: string,
  load_: Omit<LoadOptions, 'durationSeconds'> & { durationSeconds?: number },
  options: MeasureOptions = {},
): Promise<LoadResult & { hello: number; cpuMs?: Record<string, number> }> {
  if (!options.cold) await load({ ...load_, durationSeconds: WARM_SECONDS, amount: undefined });
  let hello = options.helloAfter ? 0 : await helloWorld();
  const stopMeter = options.meter?.start();
  const result = await load({ durationSeconds: SECONDS, ...load_ });
  const cpuMs = stopMeter?.();
  if (options.helloAfter) hello = await helloWorld();
  log(
    `${what}: ${Math.round(result.rps)}/s over ${result.ok + result.failures} requests, p50 ${result.p50} ms, p99 ${result.p99} ms` +
      `${result.failures ? `, ${result.failures} failures (${result.failureDetail})` : ''} (hello world ${options.helloAfter ? 'just after' : 'just before'}: ${Math.round(hello)}/s)`,
  );
  return { ...result, hello, ...(cpuMs && { cpuMs }) };
}

export const startedAt = performance.now();
