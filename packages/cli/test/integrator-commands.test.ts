import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EVENT_TYPES, type ApiEvent } from '@connectivity/contracts';
import { startLocalStack, type LocalStack } from '@connectivity/launcher/src/local-stack.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../src/index.ts';
import { TRIGGER_RECIPES } from '../src/trigger/recipes.ts';
import { capture } from './support.ts';

/**
 * The commands an integrator runs with their own key (`trigger`, `events resend`, `logs tail`),
 * against the whole system (every service, the gateway and its admin API) on a fresh database
 * and bus: PostgreSQL + NATS when DATABASE_URL / NATS_URL are set, else PGlite + in-process.
 */
let stack: LocalStack;
let dataDir: string;
let receiver: Server;
let receiverUrl = '';
const received: { id: string; type: string }[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'cli-integrator-'));
  stack = await startLocalStack({ DATA_DIR: dataDir, DELIVERY_POLL_INTERVAL_MS: '50', REQUEST_LOG_FLUSH_MS: '100', RATE_LIMIT_PER_MINUTE: '100000' });
  receiver = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      received.push({ id: String(req.headers['webhook-id']), type: (JSON.parse(raw) as { type: string }).type });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
}, 180_000);

afterAll(async () => {
  await stack?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const cli = async (argv: string[], options: { signal?: AbortSignal; out?: ReturnType<typeof capture> } = {}) => {
  const out = options.out ?? capture();
  const err = capture();
  const code = await run(argv, { env: { DATA_DIR: dataDir, CONNECTIVITY_API_URL: stack.composition.gatewayUrl }, out, err, signal: options.signal });
  return { code, out: out.text(), err: err.text() };
};

/** A fresh account made by the operator, so no test sees another's events or requests. */
async function account(): Promise<{ test: string; live: string }> {
  const created = await cli(['account', 'create', '--json']);
  expect(created.code, created.err).toBe(0);
  const body = JSON.parse(created.out) as { keys: { test: { secret: string }; live: { secret: string } } };
  return { test: body.keys.test.secret, live: body.keys.live.secret };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const events = async (key: string) => (await stack.call(key, 'GET', '/v1/events?limit=100')).body.data as ApiEvent[];

describe('pnpm cli trigger', () => {
  it('has a recipe for every event type of the catalogue, and nothing else', () => {
    expect(Object.keys(TRIGGER_RECIPES).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it.each(EVENT_TYPES)('trigger %s makes the sandbox emit it, listed by GET /v1/events', async (type) => {
    const keys = await account();
    const printed = await cli(['trigger', type, '--key', keys.test]);
    expect(printed.code, printed.err).toBe(0);
    expect(printed.out).toMatch(new RegExp(`^${type.replaceAll('.', '\\.')}: `));
    const emitted = /emitted (evt_\w+) (\S+) \(test\)$/.exec(printed.out);
    expect(emitted?.[2]).toBe(type);
    const listed = (await events(keys.test)).find((event) => event.id === emitted?.[1]);
    expect(listed).toMatchObject({ type, environment: 'test' });
    // The key the integrator uses keeps working after every trigger, api_key.* included.
    expect((await stack.call(keys.test, 'GET', '/v1/version')).status).toBe(200);
    if (type.startsWith('api_key.')) {
      // The event is the throwaway key's own, not the integrator's key's.
      const object = (listed?.data as { object?: { id?: string; prefix?: string } } | undefined)?.object;
      expect(keys.test.startsWith(object?.prefix ?? '-')).toBe(false);
    }
  });

  it('api_key.* triggers leave the key in use active and each print the event they caused', async () => {
    const keys = await account();
    const seen = new Set<string>();
    for (const type of ['api_key.issued', 'api_key.first_used', 'api_key.revoked', 'api_key.issued']) {
      const printed = await cli(['trigger', type, '--key', keys.test, '--json']);
      expect(printed.code, printed.err).toBe(0);
      const { event } = JSON.parse(printed.out) as { event: ApiEvent };
      expect(event.type).toBe(type);
      // A new event every time: never one an earlier run caused.
      expect(seen.has(event.id)).toBe(false);
      seen.add(event.id);
    }
    const active = ((await stack.call(keys.test, 'GET', '/v1/api_keys?limit=100')).body.data as { status: string; prefix: string }[]).filter(
      (k) => k.status === 'active',
    );
    expect(active).toHaveLength(1);
    expect(keys.test.startsWith(active[0]?.prefix ?? '-')).toBe(true);
  });

  it('works in the sandbox only, and names the event types it knows', async () => {
    const keys = await account();
    const live = await cli(['trigger', 'esim.released', '--key', keys.live]);
    expect(live.code).toBe(1);
    expect(live.err).toMatch(/test key/);
    const unknown = await cli(['trigger', 'esim.teleported', '--key', keys.test]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('esim.usage.threshold');
  });
});

describe('pnpm cli events resend', () => {
  it('delivers an event to the webhook endpoint again, with the same id', async () => {
    const keys = await account();
    const endpoint = await stack.call(keys.test, 'POST', '/v1/webhooks', { url: receiverUrl, enabled_events: ['esim.released'] });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const triggered = await cli(['trigger', 'esim.released', '--key', keys.test, '--json']);
    expect(triggered.code, triggered.err).toBe(0);
    const eventId = (JSON.parse(triggered.out) as { event: ApiEvent }).event.id;
    await until('the first delivery', () => (received.some((r) => r.id === eventId) ? true : undefined));

    const resent = await cli(['events', 'resend', eventId, '--key', keys.test]);
    expect(resent.code, resent.err).toBe(0);
    expect(resent.out).toBe(`Event ${eventId} replayed: queued for 1 webhook endpoint(s); sent to the open event streams (pnpm cli listen).`);
    await until('the second delivery', () => (received.filter((r) => r.id === eventId).length >= 2 ? true : undefined));
    expect(received.filter((r) => r.id === eventId).map((r) => r.type)).toEqual(['esim.released', 'esim.released']);

    const unknown = await cli(['events', 'resend', 'evt_01jzzzzzzzzzzzzzzzzzzzzzzz', '--key', keys.test]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/^Error: resource_not_found/);
  });
});

describe('pnpm cli logs tail', () => {
  it('prints the key’s recent requests, errors included, oldest first', async () => {
    const keys = await account();
    const ok = await stack.call(keys.test, 'GET', '/v1/version');
    const missing = await stack.call(keys.test, 'GET', '/v1/nowhere');
    await stack.call(keys.live, 'GET', '/v1/version');
    const lines = await until('both requests in the log', async () => {
      const tail = await cli(['logs', 'tail', '--key', keys.test]);
      expect(tail.code, tail.err).toBe(0);
      return tail.out.includes(missing.headers.get('request-id') ?? '-') ? tail.out.split('\n') : undefined;
    });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ  200  GET    /v1/version  ${ok.headers.get('request-id') ?? ''}  \\d+ ms$`),
    );
    expect(lines[1]).toContain(`404  GET    /v1/nowhere  ${missing.headers.get('request-id') ?? ''}`);
  });

  it('--follow prints new requests as they come, until stopped', async () => {
    const keys = await account();
    const first = await stack.call(keys.test, 'GET', '/v1/version');
    await until('the first request in the log', async () =>
      (await cli(['logs', 'tail', '--key', keys.test])).out.includes(first.headers.get('request-id') ?? '-') ? true : undefined,
    );

    const stop = new AbortController();
    const out = capture();
    const following = cli(['logs', 'tail', '--follow', '--interval', '100', '--key', keys.test], { signal: stop.signal, out });
    const later = await stack.call(keys.test, 'GET', '/v1/event_types?limit=1');
    await until('the new request printed', () => (out.text().includes(later.headers.get('request-id') ?? '-') ? true : undefined));
    stop.abort();
    const ended = await following;
    expect(ended.code, ended.err).toBe(0);
    // Each request once, in order, and the tail's own reads of the log are not in it.
    expect(out.lines.map((line) => /\b(req_\w+)\b/.exec(line)?.[1])).toEqual([first.headers.get('request-id'), later.headers.get('request-id')]);
  });

  it('--follow --limit n prints the last n in order, then only new requests (never the older ones it left out)', async () => {
    const keys = await account();
    const earlier: string[] = [];
    for (let i = 0; i < 6; i += 1) earlier.push((await stack.call(keys.test, 'GET', '/v1/version')).headers.get('request-id') ?? '');
    await until('the earlier requests in the log', async () =>
      (await cli(['logs', 'tail', '--key', keys.test])).out.includes(earlier.at(-1) ?? '-') ? true : undefined,
    );

    const stop = new AbortController();
    const out = capture();
    const following = cli(['logs', 'tail', '--follow', '--limit', '2', '--interval', '100', '--key', keys.test], { signal: stop.signal, out });
    await until('the first page printed', () => (out.lines.length >= 2 ? true : undefined));
    const later = await stack.call(keys.test, 'GET', '/v1/event_types?limit=1');
    await until('the new request printed', () => (out.text().includes(later.headers.get('request-id') ?? '-') ? true : undefined));
    // A few more polls: nothing older comes late.
    await new Promise((resolve) => setTimeout(resolve, 500));
    stop.abort();
    expect((await following).code).toBe(0);
    expect(out.lines.map((line) => /\b(req_\w+)\b/.exec(line)?.[1])).toEqual([...earlier.slice(-2), later.headers.get('request-id')]);
  });
});
