import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Processes to meter, by the name to print: one pid or several (e.g. PostgreSQL's backends). */
export type MeteredProcesses = Record<string, () => number[]>;

// Linux counts a process's CPU time in clock ticks of 10 ms (USER_HZ = 100 on every usual kernel).
const TICK_MS = 10;

/** User + system CPU time of `pid` so far, in ms; 0 once it is gone. */
function cpuMsOf(pid: number): number {
  try {
    // The command name (field 2) may hold spaces; the fields after it are fixed.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The pids of every process named exactly `name` (e.g. `postgres`, `nats-server`); none if pgrep finds none. */
export function pidsNamed(name: string): number[] {
  try {
    return execFileSync('pgrep', ['-x', name], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * CPU time each metered process spends between `start()` and the stop it returns, from
 * /proc/<pid>/stat: a figure that divides by the work done (ms of CPU per request) and so moves
 * far less with the shared machine's speed than a rate does. A process that ends in between
 * counts only up to its last reading.
 */
export function cpuMeter(processes: MeteredProcesses): { start(): () => Record<string, number> } {
  const read = () => Object.fromEntries(Object.entries(processes).map(([name, pids]) => [name, pids().map((pid) => [pid, cpuMsOf(pid)] as const)]));
  return {
    start() {
      const before = read();
      return () => {
        const after = read();
        return Object.fromEntries(
          Object.entries(after).map(([name, readings]) => {
            const earlier = new Map(before[name] ?? []);
            return [name, readings.reduce((sum, [pid, ms]) => sum + (earlier.has(pid) ? ms - (earlier.get(pid) ?? 0) : 0), 0)];
          }),
        );
      };
    },
  };
}
