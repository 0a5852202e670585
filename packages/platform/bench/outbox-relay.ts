// `pnpm bench`: events per second through the whole write path — business transaction with an
// outbox row, relay, bus, durable consumer — and the memory it takes, on the configured backends
// (PostgreSQL + JetStream when DATABASE_URL / NATS_URL are set, PGlite + in-process otherwise).
import { performance } from 'node:perf_hooks';
import { buildEvent, createOutbox, outboxEntry, outboxMigration, runMigrations, startOutboxRelay } from '../src/index.ts';
import { createTestBus, createTestDatabase } from '../src/testing/index.ts';

const EVENTS = Number(process.argv[2] ?? 2_000);
const BATCH = 50;

const db = await createTestDatabase();
const bus = await createTestBus();
await runMigrations(db.knex, { schema: 'bench', migrations: { '001_outbox': outboxMigration('bench') } });
const outbox = createOutbox('bench');

let received = 0;
let allReceived: () => void = () => {};
const done = new Promise<void>((resolve) => (allReceived = resolve));
const subscription = await bus.subscribe({ durable: 'bench', filterSubjects: ['events.>'] }, () => {
  received += 1;
  if (received === EVENTS) allReceived();
  return Promise.resolve();
});
const relay = startOutboxRelay({ knex: db.knex, bus, schema: 'bench', pollIntervalMs: 20, batchSize: 200 });

const rssBefore = process.memoryUsage().rss;
const started = performance.now();
for (let i = 0; i < EVENTS; i += BATCH) {
  await db.knex.transaction(async (trx) => {
    for (let j = i; j < Math.min(EVENTS, i + BATCH); j++) {
      const event = buildEvent({ type: 'esim.released', environment: 'test', accountId: 'acct_bench', data: { n: j } });
      await outbox.add(trx, outboxEntry(event));
    }
  });
  relay.wake();
}
const written = performance.now();
await done;
const finished = performance.now();
const rssAfter = process.memoryUsage().rss;

const perSecond = (n: number, ms: number) => Math.round((n / ms) * 1000);
console.log(`outbox → relay → bus → consumer on ${db.kind} + ${bus.kind}`);
console.log(`  events:               ${EVENTS}`);
console.log(`  write (${BATCH} per tx):   ${perSecond(EVENTS, written - started)} events/s`);
console.log(`  end to end:           ${perSecond(EVENTS, finished - started)} events/s (${Math.round(finished - started)} ms)`);
console.log(`  rss growth:           ${Math.round((rssAfter - rssBefore) / 1024 / 1024)} MiB (rss ${Math.round(rssAfter / 1024 / 1024)} MiB)`);

await relay.stop();
await subscription.stop();
await bus.close();
await db.close();
