import { randomBytes } from 'node:crypto';
import { forwardEvent, type LocalOutcome } from './forward-event.ts';
import { readSse } from './sse-reader.ts';

export interface ListenOptions {
  /** The public API, e.g. http://localhost:8080. */
  baseUrl: string;
  /** A test key with `events:read`. */
  apiKey: string;
  /**
   * Where a replacement key may come from when the stream refuses the key (401): the dev key of
   * a `pnpm start` that was restarted with a new one. Absent, a refused key ends listening.
   */
  renewKey?: () => Promise<string | undefined>;
  /** Where each event is POSTed, signed. */
  forwardTo: string;
  /** `esim.*,order.*`: only these types (the stream's own `types` filter). */
  types?: string | undefined;
  /** The `whsec_...` to sign with; a new one each run when absent. */
  secret?: string | undefined;
  /** One line per event and per connection change. */
  print(line: string): void;
  /** Longest wait between reconnects. */
  maxBackoffMs?: number;
  /** How long the local receiver has to answer. */
  forwardTimeoutMs?: number;
}

export interface Listener {
  /** The secret deliveries are signed with, to verify them with `standardwebhooks`. */
  secret: string;
  /** Stops listening; resolves once the loop has ended. */
  stop(): Promise<void>;
  /** Rejects with a `ListenError` when listening cannot go on (a refused key, say). */
  done: Promise<void>;
}

/** The stream refused the key or the request: reconnecting cannot help. */
export class ListenError extends Error {
  override readonly name = 'ListenError';
}

/** A Standard Webhooks secret: `whsec_` and 24 random bytes in base64. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

const outcomeText = (outcome: LocalOutcome) => ('status' in outcome ? String(outcome.status) : `failed (${outcome.error})`);

/**
 * `pnpm cli listen`: reads GET /v1/events/stream and POSTs each event to a local URL as a signed
 * webhook, in order, one line printed per event. Any drop (the server restarting or draining, the
 * network) is followed by a reconnect with Last-Event-ID after a growing pause, so nothing is
 * lost; an event may come twice after a reconnect (receivers dedupe on `webhook-id`, as for
 * real deliveries).
 */
export function listen(options: ListenOptions): Listener {
  const secret = options.secret ?? newWebhookSecret();
  const stopping = new AbortController();
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  let lastEventId: string | undefined;
  let retryMs = 1_000;
  let apiKey = options.apiKey;

  async function connectOnce(): Promise<void> {
    const url = new URL('/v1/events/stream', options.baseUrl);
    if (options.types) url.searchParams.set('types', options.types);
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${apiKey}`,
        accept: 'text/event-stream',
        ...(lastEventId && { 'last-event-id': lastEventId }),
      },
      signal: stopping.signal,
    });
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string; param?: string } };
      const code = body.error?.code ?? `HTTP ${response.status}`;
      // The event resumed from is gone (pruned): start from now, and say so.
      if (response.status === 400 && body.error?.param === 'Last-Event-ID' && lastEventId) {
        options.print(`${new Date().toISOString()}  cannot resume after ${lastEventId} (${code}); continuing from now`);
        lastEventId = undefined;
        return;
      }
      if (response.status === 401 && options.renewKey) {
        const renewed = await options.renewKey();
        if (renewed !== undefined && renewed !== apiKey) {
          options.print(`${new Date().toISOString()}  ${code}: the sandbox has a new dev key now (${renewed.slice(0, 12)}…); reconnecting with it`);
          apiKey = renewed;
          return;
        }
      }
      if (response.status === 401 || response.status === 403 || response.status === 400 || response.status === 404) {
        throw new ListenError(`${code}: ${body.error?.message ?? 'the event stream refused the request'}`);
      }
      throw new Error(`${code}: ${body.error?.message ?? 'the event stream is unavailable'}`);
    }
    options.print(`${new Date().toISOString()}  connected${lastEventId ? `, resuming after ${lastEventId}` : ''}`);
    backoff = 250;
    for await (const message of readSse(response.body, (ms) => (retryMs = ms))) {
      if (message.id === undefined) continue;
      const outcome = await forwardEvent(options.forwardTo, secret, message.id, message.data, options.forwardTimeoutMs ?? 15_000);
      lastEventId = message.id;
      options.print(`${new Date().toISOString()}  ${message.event ?? 'message'}  ${message.id}  -> ${outcomeText(outcome)}`);
    }
  }

  let backoff = 250;
  const done = (async () => {
    while (!stopping.signal.aborted) {
      try {
        await connectOnce();
        if (stopping.signal.aborted) return;
        options.print(`${new Date().toISOString()}  stream ended; reconnecting`);
      } catch (error) {
        if (stopping.signal.aborted) return;
        if (error instanceof ListenError) throw error;
        options.print(`${new Date().toISOString()}  disconnected (${error instanceof Error ? error.message : String(error)}); reconnecting in ${backoff} ms`);
      }
      await sleep(Math.max(backoff, Math.min(retryMs, maxBackoffMs)), stopping.signal);
      backoff = Math.min(backoff * 2, maxBackoffMs);
    }
  })();

  return {
    secret,
    done,
    async stop() {
      stopping.abort();
      await done.catch(() => undefined);
    },
  };
}
