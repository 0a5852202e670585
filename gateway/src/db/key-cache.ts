import { errorMessage, type Logger } from '@connectivity/platform';
import type { Knex } from 'knex';
import type { AuthenticatedKeyRow } from '../domain/api-key.ts';
import { identityOf, type Identity } from '../domain/identity.ts';
import type { KeyChangeNotice } from '../domain/key-change.ts';
import { findKeyByHash } from './keys-repository.ts';

/** What the cache holds of a key: enough to check a token against it, and the identity it stands for. */
export interface CachedKey {
  secretHash: Buffer;
  status: AuthenticatedKeyRow['status'];
  /** Built once, when the key is read (record 0260). */
  identity: Identity;
}

/** A key found by the hash of its secret, or undefined when no key has that hash. */
export type FoundKey = CachedKey | undefined;

interface Entry {
  key: FoundKey;
  loadedAt: number;
  refreshing?: Promise<void> | undefined;
}

const cachedKeyOf = (row: AuthenticatedKeyRow): CachedKey => ({ secretHash: row.secret_hash, status: row.status, identity: identityOf(row) });

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
   * The key whose secret hashes to `hash`: at once when it is in memory (no promise, so the edge's
   * authentication awaits nothing in steady state), else read once for every request that asks.
   * `beforeLookup` runs only when the key is not in memory, and may refuse the request (by
   * throwing) before the database is asked.
   */
  find(hash: Buffer, beforeLookup?: () => void): FoundKey | Promise<FoundKey> {
    const id = hash.toString('base64');
    const cached = this.fresh(id, hash);
    if (cached) return cached.key;
    beforeLookup?.();
    return this.load(id, hash).then((entry) => entry.key);
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

  /** Updates the cached identities of an account's keys after this instance changed the account itself (its pin). */
  patchAccount(accountId: string, fields: Pick<Identity, 'pinnedVersion'>): void {
    for (const hash of this.byAccount.get(accountId) ?? []) {
      const key = this.entries.get(hash)?.key;
      if (key) key.identity.pinnedVersion = fields.pinnedVersion;
    }
  }

  /** The entry in memory that may still answer, refreshed in the background once past `ttlMs`. */
  private fresh(id: string, hash: Buffer): Entry | undefined {
    const cached = this.entries.get(id);
    if (!cached) return undefined;
    const age = Date.now() - cached.loadedAt;
    if (!cached.key) return age < this.options.unknownTtlMs ? cached : undefined;
    if (age < this.options.ttlMs) return cached;
    if (age >= this.options.maxStaleMs) return undefined;
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

  /** Reads a key once for all concurrent requests that need it. */
  private load(id: string, hash: Buffer): Promise<Entry> {
    let pending = this.loading.get(id);
    if (!pending) {
      pending = findKeyByHash(this.options.knex, hash)
        .then((row) => {
          const entry: Entry = { key: row && cachedKeyOf(row), loadedAt: Date.now() };
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
      const { keyId, accountId } = entry.key.identity;
      this.byKeyId.set(keyId, id);
      let hashes = this.byAccount.get(accountId);
      if (!hashes) this.byAccount.set(accountId, (hashes = new Set()));
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
    const { keyId, accountId } = entry.key.identity;
    this.byKeyId.delete(keyId);
    const hashes = this.byAccount.get(accountId);
    hashes?.delete(id);
    if (hashes?.size === 0) this.byAccount.delete(accountId);
  }
}
