import { randomFillSync } from 'node:crypto';
import { ID_PREFIXES } from '@connectivity/contracts';
import { monotonicFactory, ulid, type PRNG } from 'ulid';

export { ID_PREFIXES };

export type IdKind = keyof typeof ID_PREFIXES;

// ulid's own PRNG asks the CSPRNG once per character (16 calls per id); this one draws the same
// CSPRNG bytes from a pool refilled 4 KiB at a time, so an id costs no system call in steady state.
const pool = Buffer.alloc(4096);
let next = pool.length;

/** A uniform fraction in [0, 1) from one byte of cryptographically secure randomness. */
export const pooledPrng: PRNG = () => {
  if (next >= pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return (pool[next++] ?? 0) / 256;
};

/**
 * `<prefix>_<ulid in lowercase>`: 26 characters of [0-9a-z] that sort by creation time, so
 * ids double as a stable tie-breaker when ordering by time.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${ulid(now, pooledPrng).toLowerCase()}`;
}

/** ULIDs that grow within a millisecond too (events of one transaction keep their order). */
export const monotonicUlid = (): ((now: number) => string) => monotonicFactory(pooledPrng);

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
