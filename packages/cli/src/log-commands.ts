import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestLog } from '@connectivity/contracts';
import { CliError } from './admin-client.ts';
import type { Command, Output } from './command.ts';

const time = (unix: number) => new Date(unix * 1000).toISOString().replace('.000Z', 'Z');

/** One line per request: when, how it ended, what was asked (path, and the operation), its Request-Id, how long. */
export const requestLine = (e: RequestLog) =>
  `${time(e.created_at)}  ${e.status}  ${e.method.padEnd(6)} ${e.path}${e.route && e.route !== e.path ? `  [${e.route}]` : ''}  ${e.id}  ${e.duration_ms} ms`;

function positiveInt(raw: string | undefined, fallback: number, what: string, max: number): number {
  if (raw === undefined) return fallback;
  if (!/^[1-9]\d*$/.test(raw) || Number(raw) > max) throw new CliError(`${what} must be a whole number from 1 to ${max}.`);
  return Number(raw);
}

const print = (out: Output, asJson: boolean | undefined, entry: RequestLog) => (asJson ? out.log(JSON.stringify(entry)) : out.log(requestLine(entry)));

/**
 * `logs tail`: the account's recent requests in the key's environment (GET /v1/request_logs),
 * oldest first like `tail`; `--follow` keeps asking and prints each new request once. A request
 * shows up once the gateway has flushed its log (about a second).
 */
export const LOG_COMMANDS: Record<string, Command> = {
  'logs tail': {
    usage: 'logs tail [--follow] [--limit n] [--interval ms] [--key sk_...] [--url <api url>] [--json]',
    summary: 'Print your recent requests (time, status, method, path and route, Request-Id, duration); --follow prints new ones as they come.',
    async run(ctx, args, out) {
      const limit = positiveInt(args.values.limit, 20, '--limit', 100);
      const interval = positiveInt(args.values.interval, 1_000, '--interval', 60_000);
      const { client } = await ctx.api();
      const first = (await client.requestLogs.list({ limit })).data;
      // Oldest first, as `tail` prints.
      for (const entry of [...first].reverse()) print(out, args.values.json, entry);
      if (!args.values.follow) return;
      // From now on only requests made after the first page: Request-Ids sort by the time a
      // request began, so older ones the first page left out are never printed late. A request
      // that began before another but was logged after it still comes, once.
      const since = first[0]?.id ?? '';
      const seen = new Set(first.map((entry) => entry.id));
      for (;;) {
        await sleep(interval, undefined, { signal: ctx.signal });
        const fresh = (await client.requestLogs.list({ limit: 100 })).data.filter((entry) => entry.id > since && !seen.has(entry.id)).reverse();
        for (const entry of fresh) {
          seen.add(entry.id);
          print(out, args.values.json, entry);
        }
        // Only ids a later page can still hold need remembering.
        if (seen.size > 10_000) for (const id of [...seen].slice(0, seen.size - 1_000)) seen.delete(id);
      }
    },
  },
};
