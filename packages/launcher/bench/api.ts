// `pnpm bench`: requests per second and latency through the public gateway, with every service
// behind it, on the configured backends (PostgreSQL + NATS when DATABASE_URL / NATS_URL are set,
// PGlite + the in-process bus otherwise). Prints figures; asserts nothing.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ensureDevAccount } from '@connectivity/gateway';
import { startLocalStack } from '../src/local-stack.ts';

const REQUESTS = Number(process.argv[2] ?? 300);
const CONCURRENCY = 8;

// The bench measures the service, not the per-key budget.
const stack = await startLocalStack({ LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '100000000' });
const { composition, db, bus } = stack;
const { testKey } = await ensureDevAccount({ db });

async function measure(name: string, send: (i: number) => Promise<Response>): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const rssBefore = process.memoryUsage().rss;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        const i = next++;
        const t0 = performance.now();
        const response = await send(i);
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
        if (!response.ok) failures += 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]?.toFixed(1);
  console.log(
    `${name.padEnd(28)} ${Math.round((REQUESTS / elapsed) * 1000)} req/s   p50 ${at(0.5)} ms   p95 ${at(0.95)} ms   p99 ${at(0.99)} ms   ` +
      `failures ${failures}   rss ${Math.round(process.memoryUsage().rss / 1024 / 1024)} MiB (+${Math.round((process.memoryUsage().rss - rssBefore) / 1024 / 1024)})`,
  );
}

const headers = { authorization: `Bearer ${testKey}` };
console.log(`gateway + services on ${db.kind} + ${bus.kind}, ${REQUESTS} requests each, ${CONCURRENCY} at a time`);
await measure('GET /v1/version (edge only)', () => fetch(`${composition.gatewayUrl}/v1/version`, { headers }));
await measure('GET /v1/esim/bundles', () => fetch(`${composition.gatewayUrl}/v1/esim/bundles?limit=20`, { headers }));
await measure('POST /v1/esim (idempotent)', (i) =>
  fetch(`${composition.gatewayUrl}/v1/esim`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `bench-order-${i}-${randomBytes(4).toString('hex')}` },
    body: JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1 }),
  }),
);
await measure('GET /v1/esim', () => fetch(`${composition.gatewayUrl}/v1/esim?limit=20`, { headers }));

await stack.close();
