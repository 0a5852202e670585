import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { doublingDelayMs, type Logger } from '@connectivity/platform';
import { waitUntilReady } from './wait-ready.ts';

/** The repository root: every service folder is found from it. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where a deployable's package lives, relative to the root. */
export const folderOf = (service: string): string => (service === 'gateway' ? 'gateway' : `services/${service}`);

export interface SupervisedService {
  /** The deployable (`gateway`, `inventory`, ...). */
  service: string;
  /** A name for this instance, unique in the supervisor (e.g. `inventory` or `inventory-2`). */
  name: string;
  port: number;
  /** The process's environment on top of the supervisor's. */
  env?: NodeJS.ProcessEnv;
}

export interface SupervisorOptions {
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Start a service again when it exits on its own (after a short backoff); off for tests that kill on purpose. */
  restartOnExit?: boolean;
  /** Where the children's output goes: the supervisor's own (inherit) or nowhere. */
  stdio?: 'inherit' | 'ignore';
  readyTimeoutMs?: number;
}

interface Running {
  spec: SupervisedService;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Stopped on purpose: its exit is not a crash. */
  stopping: boolean;
  restarts: number;
  /** The last lines the process wrote, kept when its output is not shown (`stdio: 'ignore'`). */
  tail: string[];
}

// Lines of a hidden child's output kept to explain a start that failed.
const TAIL_LINES = 40;

/**
 * Runs services as child processes exactly as their containers do (`node --import <telemetry>
 * src/main.ts` in the package folder): start one and wait until `/readyz` answers, stop one
 * with SIGTERM (graceful) or kill it with SIGKILL, restart it. A service that exits on its own
 * is reported, and restarted when asked, while the others keep running.
 */
export class Supervisor {
  private readonly running = new Map<string, Running>();
  /** What each instance that has exited was started with, for `restart`. */
  private readonly stoppedSpecs = new Map<string, SupervisedService>();
  private closed = false;
  private readonly options: SupervisorOptions;

  constructor(options: SupervisorOptions) {
    this.options = options;
  }

  /** Starts an instance and resolves once it is ready; rejects (with its exit code) if it dies first. */
  async start(spec: SupervisedService): Promise<void> {
    if (this.running.has(spec.name)) throw new Error(`${spec.name} is already running`);
    const run = this.spawn(spec, 0);
    const said = () => (run.tail.length > 0 ? `; its last output:\n${run.tail.join('\n')}` : ' (its output above says why)');
    const died = run.exited.then((code) => {
      throw new Error(`${spec.name} exited with code ${String(code)} before it was ready${said()}`);
    });
    try {
      await Promise.race([waitUntilReady(`http://127.0.0.1:${spec.port}/readyz`, this.options.readyTimeoutMs ?? 60_000), died]);
    } catch (error) {
      if (run.child.exitCode !== null || run.child.signalCode !== null) throw error;
      // Alive but never ready: what it was doing is in its output.
      throw new Error(`${spec.name} (pid ${String(run.child.pid)}): ${error instanceof Error ? error.message : String(error)}${said()}`, { cause: error });
    } finally {
      died.catch(() => undefined);
    }
    this.options.logger.info({ service: spec.name, port: spec.port, pid: run.child.pid }, 'ready');
  }

  /** SIGTERM, then waits for the exit (SIGKILL after `graceMs`, as an orchestrator would). Resolves with the exit code. */
  async stop(name: string, graceMs = 30_000): Promise<number | null> {
    const run = this.running.get(name);
    if (!run) return null;
    run.stopping = true;
    run.child.kill('SIGTERM');
    const timer = setTimeout(() => run.child.kill('SIGKILL'), graceMs);
    try {
      return await run.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** SIGKILL: the process dies at once, mid-whatever, as in a crash. */
  async kill(name: string): Promise<void> {
    const run = this.running.get(name);
    if (!run) return;
    run.stopping = true;
    run.child.kill('SIGKILL');
    await run.exited;
  }

  /** Starts a stopped or killed instance again with the same settings. */
  async restart(name: string, spec?: SupervisedService): Promise<void> {
    const known = spec ?? this.running.get(name)?.spec ?? this.stoppedSpecs.get(name);
    if (!known) throw new Error(`unknown service ${name}`);
    if (this.running.has(name)) await this.stop(name);
    await this.start(known);
  }

  /** The process id of a running instance (for tests that signal it themselves). */
  pid(name: string): number | undefined {
    return this.running.get(name)?.child.pid;
  }

  async stopAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.running.keys()].map((name) => this.stop(name)));
  }

  private spawn(spec: SupervisedService, restarts: number): Running {
    // V8's young generation capped at 16 MB semi-spaces: by default it grows to several times that
    // on a large machine and stays committed, ~100 MB a process for little gain (record 0265).
    // V8's gc exposed, for the release of memory once the service is idle (record 0269).
    const child = spawn(process.execPath, ['--max-semi-space-size=16', '--expose-gc', '--import', '@connectivity/platform/telemetry/register', 'src/main.ts'], {
      cwd: `${ROOT}${folderOf(spec.service)}`,
      // The C library gives freed memory back past 128 KiB, not past its own raised threshold (record 0269).
      env: { MALLOC_TRIM_THRESHOLD_: '131072', ...this.options.env, OTEL_SERVICE_NAME: spec.service, ...spec.env, PORT: String(spec.port) },
      // Hidden output is still read (and its tail kept), so a failed start can say why.
      stdio: this.options.stdio === 'ignore' ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const run: Running = { spec, child, exited, stopping: false, restarts, tail: [] };
    for (const stream of [child.stdout, child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        run.tail.push(...chunk.split('\n').filter((line) => line.length > 0));
        if (run.tail.length > TAIL_LINES) run.tail.splice(0, run.tail.length - TAIL_LINES);
      });
    }
    this.running.set(spec.name, run);
    void exited.then((code) => {
      if (this.running.get(spec.name) === run) this.running.delete(spec.name);
      this.stoppedSpecs.set(spec.name, spec);
      if (run.stopping || this.closed) return;
      this.options.logger.error({ service: spec.name, code }, 'service exited on its own');
      if (this.options.restartOnExit) this.restartLater(spec, restarts + 1);
    });
    return run;
  }

  private restartLater(spec: SupervisedService, restarts: number): void {
    // 1 s, 2 s, 4 s ... up to 30 s between attempts, so a service that cannot start does not spin.
    const delay = doublingDelayMs(restarts, 1_000, 30_000);
    setTimeout(() => {
      if (this.closed || this.running.has(spec.name)) return;
      this.options.logger.info({ service: spec.name, attempt: restarts, delay_ms: delay }, 'restarting service');
      const run = this.spawn(spec, restarts);
      waitUntilReady(`http://127.0.0.1:${spec.port}/readyz`, this.options.readyTimeoutMs ?? 60_000).then(
        () => this.options.logger.info({ service: spec.name, pid: run.child.pid }, 'ready again'),
        () => undefined,
      );
    }, delay).unref();
  }
}
