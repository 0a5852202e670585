import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { createAccount } from '@connectivity/gateway';
import { startDistributedStack } from '../src/distributed-stack.ts';
const prof = (d: string) => ({ NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=/tmp/prof/${d}` });
const stack = await startDistributedStack({ databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres', natsUrl: 'nats://127.0.0.1:4222', stdio: 'ignore', env: { RATE_LIMIT_PER_MINUTE: '100000000', REDIS_URL: 'redis://127.0.0.1:6379', LOG_LEVEL: 'warn' }, envOf: process.argv[2] === 'prof' ? { gateway: prof('g'), inventory: prof('i'), notifications: prof('n'), catalogue: prof('c') } : process.argv[2] === 'pool' ? { gateway: { DATABASE_POOL_MAX: '20' }, inventory: { DATABASE_POOL_MAX: '20' } } : {} });
try {
  const a = await createAccount(stack.knex);
  const r = await autocannon({
    url: `${stack.gatewayUrls[0]}/v1/esim`, connections: 20, duration: 8, method: 'POST',
    headers: { authorization: `Bearer ${a.test.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1 }),
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': randomBytes(12).toString('hex') } }) }],
  });
  console.log('orders', Math.round(r.requests.average), 'req/s', 'non2xx', r.non2xx, 'p50', r.latency.p50);
  await new Promise((resolve) => setTimeout(resolve, 1500));
} finally { await stack.close(); }
