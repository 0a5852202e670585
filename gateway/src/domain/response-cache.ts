import type { ForwardedResponse } from './forwarded-response.ts';

interface Entry {
  response: ForwardedResponse;
  storedAt: number;
  expiresAt: number;
  bytes: number;
}

/** `max-age` of a `Cache-Control: private|public, max-age=N` answer, or 0 when it may not be kept. */
export function maxAgeSeconds(cacheControl: string | undefined): number {
  if (!cacheControl || /\b(no-store|no-cache)\b/i.test(cacheControl)) return 0;
  const match = /\bmax-age=(\d+)/i.exec(cacheControl);
  return match ? Number(match[1]) : 0;
}

/**
 * The edge keeps a read the owning service marked cacheable (`Cache-Control: private,
 * max-age=N`: the sandbox catalogue, which changes only by migration) for that long, per API
 * key and version, so a repeated identical read is answered without the hop. Every check of the
 * order of checks still runs before it (key, version, rate limit, route, scope, validation); a
 * client's `Cache-Control: no-cache` skips it. Bounded in entries and bytes; oldest out first.
 */
export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxAgeCapSeconds: number;

  constructor(options: { maxEntries?: number; maxBytes?: number; maxAgeCapSeconds?: number } = {}) {
    this.maxEntries = options.maxEntries ?? 5_000;
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
    this.maxAgeCapSeconds = options.maxAgeCapSeconds ?? 60;
  }

  get(key: string, now = Date.now()): { response: ForwardedResponse; ageSeconds: number } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.delete(key, entry);
      return undefined;
    }
    return { response: entry.response, ageSeconds: Math.floor((now - entry.storedAt) / 1000) };
  }

  /** Keeps `response` if it is a 200 its service marked cacheable. */
  offer(key: string, response: ForwardedResponse, now = Date.now()): void {
    const maxAge = Math.min(maxAgeSeconds(response.headers['cache-control']), this.maxAgeCapSeconds);
    if (response.status !== 200 || maxAge <= 0) return;
    const bytes = typeof response.body === 'string' ? Buffer.byteLength(response.body) : response.body.length;
    if (bytes > this.maxBytes / 16) return;
    const existing = this.entries.get(key);
    if (existing) this.delete(key, existing);
    this.entries.set(key, { response, storedAt: now, expiresAt: now + maxAge * 1000, bytes });
    this.bytes += bytes;
    // Oldest out first (a Map keeps insertion order).
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.delete(oldKey, oldEntry);
    }
  }

  private delete(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
