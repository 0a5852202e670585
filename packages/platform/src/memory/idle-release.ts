import type { Server } from 'node:http';

/** V8's `gc` (present when Node runs with `--expose-gc`), with the options of V8's gc extension. */
type ExposedGc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

const exposedGc = (): ExposedGc | undefined => (globalThis as { gc?: ExposedGc }).gc;

/** One full collection of this isolate in V8's last-resort flavour; nothing without `--expose-gc`. */
export function collectLastResort(): void {
  exposedGc()?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

export interface IdleMemoryOptions {
  /** How long without a request before the memory is given back (ms). */
  idleMs?: number;
  /** What collects this isolate: `collectLastResort` when V8's gc is exposed; else nothing runs. */
  collect?: (() => void) | undefined;
}

export interface IdleMemoryRelease {
  /** Counts the requests of one more server. */
  watch(server: Server): void;
  /** Releases run so far. */
  readonly releases: number;
  stop(): void;
}

const IDLE_MS = 2_000;
const hooks = new Set<() => void>();

/** Work to run with each idle release (another isolate's own collection); returns its removal. */
export function onIdleRelease(hook: () => void): () => void {
  hooks.add(hook);
  return () => hooks.delete(hook);
}

/**
 * Gives back the memory a burst of requests left behind once the process has been idle (record
 * 0269). V8 keeps the heap it grew under load, and the pages its collections freed, until a
 * collection that reduces memory; measured, it ran none in the half minute after a bench's load
 * (the background pollers still allocating a little). After `idleMs` without a request, following
 * requests since the last release, one full collection in V8's last-resort flavour (the one the
 * inspector's "collect garbage" runs) compacts the heap and frees the pooled pages, and the other
 * isolates of the process (`onIdleRelease`) do the same: ~55 MB of the embedded form's resident
 * memory after a bench's load. Busy, it costs a counter per request and a timer; it runs once per
 * quiet spell, never while requests come.
 */
export function releaseMemoryWhenIdle(options: IdleMemoryOptions = {}): IdleMemoryRelease {
  const collect = options.collect ?? (exposedGc() ? collectLastResort : undefined);
  let served = 0;
  let seen = 0;
  let releasedAt = 0;
  let releases = 0;
  const count = () => {
    served += 1;
  };
  const servers: Server[] = [];
  // A tick that sees no request since the one before: none for at least idleMs.
  const timer = collect
    ? setInterval(() => {
        if (served !== seen) {
          seen = served;
          return;
        }
        if (served === releasedAt) return;
        releasedAt = served;
        releases += 1;
        collect();
        for (const hook of hooks) hook();
      }, options.idleMs ?? IDLE_MS).unref()
    : undefined;
  return {
    watch(server) {
      servers.push(server);
      server.on('request', count);
    },
    get releases() {
      return releases;
    },
    stop() {
      clearInterval(timer);
      for (const server of servers) server.off('request', count);
    },
  };
}

let processRelease: IdleMemoryRelease | undefined;

/** The process's one idle release: every server `listen` starts is counted by it. */
export function watchForIdle(server: Server): void {
  processRelease ??= releaseMemoryWhenIdle();
  processRelease.watch(server);
}
