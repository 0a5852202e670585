import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startCommand } from '../../src/start-command.ts';

/** The repository root (the embedded form runs from there, as `pnpm start` does). */
export const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

const live = new Set<ChildProcess>();

/** Every child still running, for the bench's cleanup on an error or Ctrl-C. */
export function liveChildren(): ChildProcess[] {
  return [...live];
}

function track(child: ChildProcess): Promise<number | null> {
  live.add(child);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
export async function stopChild(child: ChildProcess, exited: Promise<number | null>, graceMs = 20_000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

export interface Child {
  pid: number;
  stop(): Promise<number | null>;
}

/** The express hello-world in a child process on this same Node binary. */
export const startHelloWorld = () => startBaseline('./hello-world.ts', {});

/** The bare express + undici forward to `targetUrl` (see bare-forward.ts), in a child process. */
export const startBareForward = (targetUrl: string) => startBaseline('./bare-forward.ts', { TARGET_URL: targetUrl });

/** A baseline server of this folder in a child process on this same Node binary; it prints its port. */
async function startBaseline(script: string, env: NodeJS.ProcessEnv): Promise<Child & { url: string }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const exited = track(child);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(Number(out.trim()));
    });
    void exited.then((code) => reject(new Error(`${script} exited with code ${String(code)}`)));
  });
  return { url: `http://127.0.0.1:${port}`, pid: child.pid ?? 0, stop: () => stopChild(child, exited) };
}

/** Polls `url` every 25 ms until it answers 200; rejects when `died` settles first or after `timeoutMs`. */
async function pollReady(url: string, died: Promise<unknown>, timeoutMs: number): Promise<void> {
  let dead = false;
  void died.then(() => (dead = true));
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (dead) throw new Error(`the process behind ${url} exited before it was ready`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

export interface EmbeddedOptions {
  port: number;
  adminPort: number;
  dataDir: string;
  testKey: string;
  env: NodeJS.ProcessEnv;
  /** Node flags before `--import` (e.g. --cpu-prof). */
  nodeArgs?: string[];
  verbose?: boolean;
}

/**
 * The `pnpm start` command's node invocation, from the repository root, on PGlite and the
 * in-process bus. Resolves once the gateway's /readyz answers 200, with the time that took.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<Child & { readyMs: number }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...options.env,
    PORT: String(options.port),
    HOST: '127.0.0.1',
    ADMIN_PORT: String(options.adminPort),
    DATA_DIR: options.dataDir,
    DEV_TEST_KEY: options.testKey,
  };
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  delete env.REDIS_URL;
  const started = performance.now();
  const start = startCommand();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...start.args], {
    cwd: ROOT,
    env: { ...env, ...start.env },
    stdio: options.verbose ? 'inherit' : 'ignore',
  });
  const exited = track(child);
  const stop = () => stopChild(child, exited);
  try {
    await pollReady(`http://127.0.0.1:${options.port}/readyz`, exited, 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { pid: child.pid ?? 0, readyMs: performance.now() - started, stop };
}

/** Resident and peak resident memory of a process, in MiB, from /proc/<pid>/status. */
export async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** How long the bench leaves the server idle before it reads the memory it settled at (record 0269). */
export const SETTLE_MS = 5_000;

/**
 * Each process's resident memory at the end of the load and after `SETTLE_MS` without a request,
 * when the idle release (record 0269) has given back what the burst left behind (MiB).
 */
export async function memoryAfterLoad(pids: number[]): Promise<{ atLoad: number[]; settled: number[]; peak: number[] }> {
  const atLoad = await Promise.all(pids.map(memoryOf));
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const settled = await Promise.all(pids.map(memoryOf));

  return { atLoad: atLoad.map((m) => m.rss), settled: settled.map((m) => m.rss), peak: settled.map((m) => m.peak) };
}

/** The environment a running process was started with, from /proc/<pid>/environ. */
export async function environmentOf(pid: number): Promise<Record<string, string>> {
  const raw = await readFile(`/proc/${pid}/environ`, 'utf8');
  const env: Record<string, string> = {};
  for (const entry of raw.split('\0')) {
    const at = entry.indexOf('=');
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return env;
}
