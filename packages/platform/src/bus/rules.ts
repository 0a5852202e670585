/**
 * The rules both bus adapters share (validation, defaults, backoff, dead-letter headers,
 * subject matching), kept in one place so the in-process bus cannot drift from JetStream.
 */
import type { PublishInput, SubscribeOptions } from './types.ts';

export const DEFAULT_MAX_DELIVER = 5;
/** Redelivery delays after a failure when the subscriber gives none; the last one repeats. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [1_000, 10_000, 60_000, 300_000];
/** How long a message id is remembered for de-duplication (JetStream's `duplicate_window`). */
export const DEFAULT_DUPLICATE_WINDOW_MS = 120_000;

/** Headers added to a dead-lettered message, beside its original headers. */
export const DEAD_LETTER_HEADERS = {
  error: 'dead-letter-error',
  durable: 'dead-letter-durable',
  deliveries: 'dead-letter-deliveries',
} as const;

/** Every subject lives in one of two spaces: live events, or dead letters. */
export type SubjectSpace = 'events' | 'dead';

// Subject tokens, header names and durable names (which become a token of `dead.<durable>.<subject>`
// and a JetStream consumer name) share one conservative alphabet.
const TOKEN = /^[A-Za-z0-9_-]+$/;

export interface ResolvedSubscribeOptions {
  durable: string;
  filterSubjects: string[];
  maxDeliver: number;
  backoffMs: number[];
  space: SubjectSpace;
  concurrency: number;
}

function spaceOf(subject: string): SubjectSpace | undefined {
  if (subject.startsWith('events.')) return 'events';
  if (subject.startsWith('dead.')) return 'dead';
  return undefined;
}

/** Throws unless `subject` is a concrete (wildcard-free) subject under `events.` or `dead.`. */
export function assertPublishSubject(subject: string): SubjectSpace {
  const space = spaceOf(subject);
  const tokens = subject.split('.');
  if (space === undefined || tokens.length < 2 || !tokens.every((t) => TOKEN.test(t))) {
    throw new Error(`bus: cannot publish to "${subject}": subjects are "events.<...>" or "dead.<...>" without wildcards`);
  }
  return space;
}

function assertFilter(filter: string): SubjectSpace {
  const space = spaceOf(filter);
  const tokens = filter.split('.');
  const valid = tokens.every((t, i) => TOKEN.test(t) || t === '*' || (t === '>' && i === tokens.length - 1));
  if (space === undefined || tokens.length < 2 || !valid) {
    throw new Error(`bus: invalid filter subject "${filter}"`);
  }
  return space;
}

/** NATS refuses CR/LF in header values, and `Nats-*` headers would change JetStream's behaviour. */
export function assertHeaders(headers: Record<string, string>): void {
  for (const [key, value] of Object.entries(headers)) {
    if (!TOKEN.test(key) || key.toLowerCase().startsWith('nats-')) {
      throw new Error(`bus: invalid header name "${key}"`);
    }
    if (typeof value !== 'string' || /[\r\n]/.test(value)) {
      throw new Error(`bus: invalid value for header "${key}"`);
    }
  }
}

export function assertPublishInput(input: PublishInput): SubjectSpace {
  if (typeof input.id !== 'string' || input.id.length === 0) throw new Error('bus: a message needs an id');
  assertHeaders(input.headers ?? {});
  return assertPublishSubject(input.subject);
}

/** Validates the options and applies the defaults; all filters must be in one subject space. */
export function resolveSubscribeOptions(opts: SubscribeOptions): ResolvedSubscribeOptions {
  if (!TOKEN.test(opts.durable)) throw new Error(`bus: invalid durable name "${opts.durable}"`);
  if (opts.filterSubjects.length === 0) throw new Error('bus: a subscription needs at least one filter subject');
  const spaces = new Set(opts.filterSubjects.map(assertFilter));
  const [space] = spaces;
  if (space === undefined || spaces.size > 1) {
    throw new Error('bus: one subscription cannot mix "events." and "dead." filters');
  }
  const maxDeliver = opts.maxDeliver ?? DEFAULT_MAX_DELIVER;
  if (!Number.isInteger(maxDeliver) || maxDeliver < 1) throw new Error('bus: maxDeliver must be a positive integer');
  const backoffMs = opts.backoffMs && opts.backoffMs.length > 0 ? [...opts.backoffMs] : [...DEFAULT_BACKOFF_MS];
  if (!backoffMs.every((ms) => Number.isFinite(ms) && ms >= 0)) throw new Error('bus: backoffMs must be non-negative');
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('bus: concurrency must be a positive integer');
  return { durable: opts.durable, filterSubjects: [...opts.filterSubjects], maxDeliver, backoffMs, space, concurrency };
}

/** The delay before redelivering a message that failed on delivery `deliveryCount` (1-based). */
export function redeliveryDelay(backoffMs: readonly number[], deliveryCount: number): number {
  const index = Math.min(Math.max(deliveryCount - 1, 0), backoffMs.length - 1);
  return backoffMs[index] ?? 0;
}

/** NATS subject matching: `*` is exactly one token, a trailing `>` one or more. */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i += 1) {
    const token = f[i];
    if (token === '>') return s.length > i;
    if (i >= s.length) return false;
    if (token !== '*' && token !== s[i]) return false;
  }
  return f.length === s.length;
}

/** A one-line, bounded description of a handler failure, safe as a header value. */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.replace(/[\r\n]+/g, ' ').slice(0, 1_000);
}

export function deadLetterHeaders(headers: Record<string, string>, err: unknown, durable: string, deliveryCount: number): Record<string, string> {
  return {
    ...headers,
    [DEAD_LETTER_HEADERS.error]: errorText(err),
    [DEAD_LETTER_HEADERS.durable]: durable,
    [DEAD_LETTER_HEADERS.deliveries]: String(deliveryCount),
  };
}

/** Payloads travel as JSON in both adapters, so a handler sees the same shape in each. */
export function encodePayload(payload: unknown): string {
  return JSON.stringify(payload ?? null);
}
