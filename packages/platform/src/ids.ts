import { ID_PREFIXES } from '@connectivity/contracts';
import { ulid } from 'ulid';

export { ID_PREFIXES };

export type IdKind = keyof typeof ID_PREFIXES;

/**
 * `<prefix>_<ulid in lowercase>`: 26 characters of [0-9a-z] that sort by creation time, so
 * ids double as a stable tie-breaker when ordering by time.
 */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return `${ID_PREFIXES[kind]}_${ulid(now).toLowerCase()}`;
}

export function hasPrefix(id: string, kind: IdKind): boolean {
  return id.startsWith(`${ID_PREFIXES[kind]}_`);
}
