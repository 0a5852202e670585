import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import { errorMessage, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import { bearerToken, hashSecret, secretEnvironment } from '../domain/api-key-secret.ts';
import type { KeyChangeNotice } from '../domain/key-change.ts';
import { findKeyByHash, type AuthenticatedKeyRow } from './keys-repository.ts';

interface Entry {
  key: AuthenticatedKeyRow | undefined;
  loadedAt: number;
  refreshing?: Promise<void> | undefined;
}

export interface KeyCacheOptions {
  knex: Knex;
  logger: Logger;
  /** After this an entry is re-read in the background while it keeps answering. */
  ttlMs: number;
  /** After this an entry is re-read before it answers (a missed notice cannot outlive it). */
  maxStaleMs?: number;
  /** Told of every change notice, this instance's and the others' (after the cache dropped what it names). */
  onChange?: (notice: KeyChangeNotice) => void;
  /** Unknown tokens are remembered this long, at most `maxUnknown` of them. */
  unknownTtlMs?: number;
  maxUnknown?: number;
}

/**
 * Keys in process memory, so an authenticated request costs no database round trip in steady
 * state: hash → key, account, scopes, pinned version and rate-limit budget. A change of a key or
 * its account (revoke, restrict, rotate, budget, pin) is announced on the bus and every instance
 * drops what it holds at once (the key-change listener calls `forget`); an entry also refreshes
 * itself after `ttlMs` in the background, and is never used past `maxStaleMs`, so a lost notice
 * heals by itself.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly byKeyId = new Map<string, string>();
  private readonly byAccount = new Map<string, Set<string>>();
  private readonly loading = new Map<string, Promise<Entry>>();
  private readonly options: Required<Pick<KeyCacheOptions, 'maxStaleMs' | 'unknownTtlMs' | 'maxUnknown'>> & KeyCacheOptions;

  constructor(options: KeyCacheOptions) {
    this.options = { maxStaleMs: options.ttlMs * 6, unknownTtlMs: 5_000, maxUnknown: 10_000, ...options };
  }

  /**
   * Step 1 of the order of checks: no `Authorization: Bearer <token>` is `key_missing`, a token
   * that is no key `key_invalid`, a revoked key `key_revoked`. A token that cannot be a key (not
   * `sk_test_`/`sk_live_` and its characters) is refused without a lookup; otherwise only the
   * SHA-256 of the token is looked up, and compared again in constant time. `beforeLookup` runs
   * only when the key is not in memory, and may refuse the request before the database is asked.
   */
  async authenticate(authorization: string | undefined, beforeLookup?: () => void): Promise<AuthenticatedKeyRow> {
    const token = bearerToken(authorization);
    if (token === undefined) throw new ApiError('key_missing');
    if (secretEnvironment(token) === undefined) throw new ApiError('key_invalid');
    const hash = hashSecret(token);
    const key = (await this.entry(hash, beforeLookup)).key;
    if (!key || !timingSafeEqual(key.secret_hash, hash)) throw new ApiError('key_invalid');
    if (key.status !== 'active') throw new ApiError('key_revoked');
    return key;
  }

  /** Drops what a change notice names, so the next request reads it again. */
  forget(notice: KeyChangeNotice): void {
    for (const keyId of notice.keyIds ?? []) {
      const hash = this.byKeyId.get(keyId);
      if (hash) this.drop(hash);
    }
    if (notice.accountId) for (const hash of [...(this.byAccount.get(notice.accountId) ?? [])]) this.drop(hash);
    if (notice.issued) for (const [hash, entry] of [...this.entries]) if (!entry.key) this.drop(hash);
    this.options.onChange?.(notice);
  }

  /** Updates the cached fields of an account's keys after this instance changed them itself (its pin). */
  patchAccount(accountId: string, fields: Partial<Pick<AuthenticatedKeyRow, 'pinned_version'>>): void {
    for (const hash of this.byAccount.get(accountId) ?? []) {
      const key = this.entries.get(hash)?.key;
      if (key) Object.assign(key, fields);
    }
  }

  private async entry(hash: Buffer, beforeLookup?: () => void): Promise<Entry> {
    const id = hash.toString('base64');
    const cached = this.entries.get(id);
    const now = Date.now();
    if (cached) {
      const age = now - cached.loadedAt;
      if (!cached.key) {
        if (age < this.options.unknownTtlMs) return cached;
      } else if (age < this.options.ttlMs) {
        return cached;
      } else if (age < this.options.maxStaleMs) {
        // Answer from memory; read it again in the background for the next request.
        cached.refreshing ??= this.load(id, hash).then(
          () => undefined,
          (error: unknown) => {
            cached.refreshing = undefined;
            this.options.logger.warn({ err: errorMessage(error) }, 'refreshing a cached API key failed');
          },
        );
        return cached;
      }
    }
    beforeLookup?.();
    return this.load(id, hash);
  }

  /** Reads a key once for all concurrent requests that need it. */
  private load(id: string, hash: Buffer): Promise<Entry> {
    let pending = this.loading.get(id);
    if (!pending) {
      pending = findKeyByHash(this.options.knex, hash)
        .then((key) => {
          const entry: Entry = { key, loadedAt: Date.now() };
          this.store(id, entry);
          return entry;
        })
        .finally(() => this.loading.delete(id));
      this.loading.set(id, pending);
    }
    return pending;
  }

  private store(id: string, entry: Entry): void {
    this.drop(id);
    if (!entry.key) {
      // Unknown tokens are remembered briefly, and only so many: guessing cannot fill memory.
      if (this.unknownCount >= this.options.maxUnknown) return;
      this.unknownCount += 1;
    } else {
      this.byKeyId.set(entry.key.id, id);
      let hashes = this.byAccount.get(entry.key.account_id);
      if (!hashes) this.byAccount.set(entry.key.account_id, (hashes = new Set()));
      hashes.add(id);
    }
    this.entries.set(id, entry);
  }

  private unknownCount = 0;

  private drop(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    if (!entry.key) {
      this.unknownCount -= 1;
      return;
    }
    this.byKeyId.delete(entry.key.id);
    const hashes = this.byAccount.get(entry.key.account_id);
    hashes?.delete(id);
    if (hashes?.size === 0) this.byAccount.delete(entry.key.account_id);
  }
}
