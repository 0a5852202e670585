// `pnpm bench:api` (and part of `pnpm bench`): the API loaded as an integrator's test suite loads
// it (issue "The sandbox at a test suite's pace"): reads, then orders with no pause after them,
// then orders whose webhooks are timed behind whatever the burst left queued, then the memory of
// every process; in the distributed form (distributed.ts) and the embedded one (embedded.ts).
// Every throughput figure is measured with the same load generator as a plain express
// hello-world run in a child process of the same Node, measured beside it, and printed with its
// ratio to it, since the machine is shared and only such ratios mean anything. Tracing stays on:
// every process exports its spans over OTLP/HTTP to a sink in this process. Prints each figure
// with its goal, met or not; exits non-zero only when the bench itself broke.
//
//   node bench/hot-path.ts [--quick] [--profile gateway|catalogue|inventory|notifications|sandbox-simulator|embedded [--profile-out DIR]] [--only distributed|embedded] [--verbose]
//
// --quick (or BENCH_QUICK=1): 3 s per figure instead of 10, 20 k reads before the embedded orders
// instead of 100 k. PostgreSQL, NATS and Redis come from DATABASE_URL / NATS_URL / REDIS_URL,
// else the local defaults; the embedded form uses none of them, as on a fresh laptop.
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { distributed } from './distributed.ts';
import { embedded } from './embedded.ts';
import { ROOT, startHelloWorld } from './support/children.ts';
import { hotFunctions, readProfiles } from './support/cpu-profile.ts';
import { callersOf, foldedStacks } from './support/flame.ts';
import { load, quantile } from './support/load.ts';
import { startOtlpSink } from './support/otlp-sink.ts';
import { notes, printTable, rows } from './support/report.ts';
import {
  CONNECTIONS,
  HELLO_SECONDS,
  SECONDS,
  WARM_SECONDS,
  cleanAll,
  hellos,
  onCleanup,
  only,
  profileOut,
  profileTarget,
  profileWindow,
  quick,
  seconds,
  startedAt,
  useHelloWorld,
} from './support/run.ts';

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    console.error(`\n${signal}: stopping every process the bench started...`);
    void cleanAll().finally(() => process.exit(130));
  });
}

const [load1, load5, load15] = loadavg().map((value) => value.toFixed(2));
console.log(
  `hot-path bench (${quick ? 'quick' : 'full'}: ${SECONDS} s per figure after ${WARM_SECONDS} s warm-up, ${CONNECTIONS} connections for reads), Node ${process.version}, ` +
    `${availableParallelism()} cores, load average at start ${load1} ${load5} ${load15}`,
);

const profileDir = profileTarget ? await mkdtemp(join(tmpdir(), 'connectivity-cpu-prof-')) : undefined;
const cpuProfFlags = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];

const sink = await startOtlpSink();
onCleanup(() => sink.close());
const hello = await startHelloWorld();
onCleanup(() => hello.stop());
useHelloWorld(hello.url);

async function printProfiles(): Promise<void> {
  if (!profileDir) return;
  const profiles = await readProfiles(profileDir);
  if (profiles.length === 0) console.log(`\nno .cpuprofile was written for ${profileTarget} (it must exit gracefully to write one)`);
  for (const { file, profile } of profiles) {
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main one, the others
    // are worker threads (e.g. the one that runs the telemetry's module-loader hooks).
    const [, , , pid, thread] = file.split('.');
    const { functions, owners, busyMs, idleMs } = hotFunctions(profile, ROOT, profileWindow);
    if (thread !== '0' && busyMs < 100) {
      console.log(`\n${profileTarget} (pid ${pid}) worker thread ${thread}: ${busyMs.toFixed(0)} ms busy under load, not listed`);
      continue;
    }
    const which = thread === '0' ? `pid ${pid}, main thread` : `pid ${pid}, worker thread ${thread}`;
    console.log(
      `\nCPU profile of ${profileTarget} (${which}), from the end of its start-up to the end of its load: ` +
        `${seconds(busyMs)} busy, ${seconds(idleMs)} idle; top ${functions.length} by self time:`,
    );
    for (const fn of functions) {
      console.log(`  ${fn.selfMs.toFixed(0).padStart(7)} ms ${(fn.share * 100).toFixed(1).padStart(5)}%  ${fn.name}  ${fn.where}`);
    }
    console.log(`  self time by owner: ${owners.map(({ owner, share }) => `${owner} ${(share * 100).toFixed(1)}%`).join(', ')}`);
    const folded = foldedStacks(profile, ROOT, profileWindow);
    for (const fn of functions.slice(0, 6)) {
      if (fn.name.startsWith('(')) continue;
      console.log(`  where ${fn.name}'s time comes from:`);
      for (const { chain, us } of callersOf(folded, fn.name)) console.log(`    ${(us / 1000).toFixed(0).padStart(6)} ms  ${chain}`);
    }
    if (profileOut) await writeFile(join(profileDir, file.replace(/\.cpuprofile$/, '.folded')), folded);
  }
  if (profileOut) {
    await cp(profileDir, profileOut, { recursive: true });
    console.log(`\nthe profiles (.cpuprofile for Chrome DevTools, .folded for any flame-graph renderer) are in ${profileOut}`);
  }
  await rm(profileDir, { recursive: true, force: true });
}

try {
  await load({ url: hello.url, path: '/', connections: CONNECTIONS, durationSeconds: WARM_SECONDS });
  if (only !== 'embedded') await distributed(sink, cpuProfFlags);
  if (only !== 'distributed') await embedded(sink, cpuProfFlags);
  await cleanAll();

  const [endLoad1, endLoad5, endLoad15] = loadavg().map((value) => value.toFixed(2));
  console.log('');
  printTable();
  console.log('');
  const median = quantile(
    [...hellos].sort((a, b) => a - b),
    0.5,
  );
  console.log(
    `hello world (express 5.1.0 in a child process, GET /, ${CONNECTIONS} connections, ${HELLO_SECONDS} s beside each figure with a ratio): ` +
      `${hellos.map((rps) => Math.round(rps)).join(', ')} req/s (median ${Math.round(median)})`,
  );
  for (const note of notes) console.log(note);
  console.log(
    `OTLP sink received ${sink.received.traces.requests} trace exports (${(sink.received.traces.bytes / 1024 / 1024).toFixed(1)} MiB) ` +
      `and ${sink.received.metrics.requests} metric exports`,
  );
  console.log(
    `load average at start ${load1} ${load5} ${load15}, at the end ${endLoad1} ${endLoad5} ${endLoad15}; ${availableParallelism()} cores; run took ${seconds(performance.now() - startedAt)}`,
  );
  await printProfiles();
} catch (error) {
  if (!interrupted) {
    console.error('\nthe bench broke:', error);
    await cleanAll();
    if (rows.length > 0) {
      console.log('\nwhat was measured before it broke:');
      printTable();
    }
    process.exit(1);
  }
}
