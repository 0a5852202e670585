import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Headers added to each request (e.g. a fresh Idempotency-Key). */
  perRequestHeaders?: () => Record<string, string>;
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead of after `durationSeconds`. */
  amount?: number | undefined;
}

export interface LoadResult {
  /** 2xx answers per second: failures never count as throughput. */
  rps: number;
  /** From the start to the last answer. */
  seconds: number;
  ok: number;
  failures: number;
  /** Answers by status code, and connection errors / timeouts, when there were failures. */
  failureDetail: string;
  /** Latency of 2xx answers (autocannon measures whole milliseconds). */
  p50: number;
  p99: number;
}

/** Closed-loop load with autocannon: `connections` keep-alive connections, each sending as soon as it has its answer. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const { perRequestHeaders } = options;
  const started = performance.now();
  let lastAnswer = started;
  const runOptions: autocannon.Options = {
    url: `${options.url}${options.path}`,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined && { body: options.body }),
    connections: options.connections,
    ...(options.amount ? { amount: options.amount } : { duration: options.durationSeconds }),
    ...(perRequestHeaders && {
      requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, ...perRequestHeaders() } }) }],
    }),
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(runOptions, (error, done) => (error ? reject(error as Error) : resolve(done)));
    run.on('response', () => {
      lastAnswer = performance.now();
    });
  });
  // autocannon ends a run (and its `duration`) on its next 1 s sample after the last answer, so a
  // run of `amount` requests measured by it is rounded up to whole seconds (20 k reads in 4.2 s
  // counted as 5 s); throughput is the answers over the time until the last of them.
  const seconds = (lastAnswer - started) / 1000;
  const ok = result['2xx'];
  const failures = result.non2xx + result.errors;
  const codes = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, stats]) => `${code}×${stats.count ?? 0}`);
  if (result.errors > 0) codes.push(`errors×${result.errors}${result.timeouts > 0 ? ` (timeouts ${result.timeouts})` : ''}`);
  return { rps: seconds > 0 ? ok / seconds : 0, seconds, ok, failures, failureDetail: codes.join(' '), p50: result.latency.p50, p99: result.latency.p99 };
}

/** A keep-alive client over exactly one connection, timing each request to the microsecond. */
export function sequentialClient(url: string, path: string, headers: () => Record<string, string>) {
  const target = new URL(url);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const once = () =>
    new Promise<{ status: number; ms: number }>((resolve, reject) => {
      const started = performance.now();
      const req = request({ host: target.hostname, port: target.port, path, method: 'GET', headers: headers(), agent }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  return { once, close: () => agent.destroy() };
}

/** The value at quantile `q` (0..1) of ascending `sorted`. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
}
