import type { LoadResult } from './load.ts';

// What is printed at the end: one row per figure, with its goal and whether it was met.

export interface Row {
  figure: string;
  measured: string;
  /** Successful requests per second, shown as a ratio to the hello-world measured beside it. */
  rps?: number;
  hello?: number;
  goal: string;
  /** A goal stated as a ratio to the hello-world: met when at least this. */
  minRatio?: number;
  /** A goal stated otherwise; undefined: no goal. */
  met?: boolean;
}
export const rows: Row[] = [];
export const notes: string[] = [];

export const throughput = (result: LoadResult, unit = 'req/s') =>
  `${Math.round(result.rps)} ${unit} (p50 ${result.p50} ms, p99 ${result.p99} ms)${result.failures ? `, ${result.failures} failed: ${result.failureDetail}` : ''}`;

/** Hello-world on the machine issue 33 set its orders/s goals on (48-50 k req/s; this kind of machine may do a third of it). */
const ISSUE_MACHINE_HELLO = 49_000;

/**
 * The row of an orders figure against an orders/s goal as issue 33 set it. The goal cell also
 * gives the share of hello-world that goal was on the issue's machine, so the ratio column says
 * how far this run is from it on a slower or faster machine; met stays the orders/s as set.
 */
export function ordersRow(figure: string, orders: LoadResult & { hello: number }, perSecond: number): Row {
  return {
    figure,
    measured: throughput(orders, 'orders/s'),
    rps: orders.rps,
    hello: orders.hello,
    goal: `≥ ${perSecond} orders/s (${(perSecond / ISSUE_MACHINE_HELLO).toFixed(4)} of hello on the issue's machine)`,
    met: orders.rps >= perSecond && orders.ok > 0,
  };
}

const formatRatio = (ratio: number) => (ratio < 0.1 ? ratio.toFixed(4) : ratio.toFixed(2));

export function printTable(): void {
  const header = ['figure', 'measured', 'ratio to hello', 'goal', 'status'];
  const cells = rows.map((row) => {
    const ratio = row.rps === undefined || row.hello === undefined ? undefined : row.rps / row.hello;
    const met = row.minRatio !== undefined && ratio !== undefined ? ratio >= row.minRatio : row.met;
    return [row.figure, row.measured, ratio === undefined ? '' : formatRatio(ratio), row.goal, met === undefined ? '' : met ? 'met' : 'NOT met'];
  });
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => cell[i]?.length ?? 0)));
  const line = (cell: string[]) => `| ${cell.map((text, i) => text.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const cell of cells) console.log(line(cell));
}
