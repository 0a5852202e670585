import { ApiError, METADATA_LIMITS, type Metadata } from '@connectivity/contracts';

// Metadata rules beyond the shape the contract checks (record 0257).

/** Metadata given at purchase: a key set to `""` is simply not set. */
export function initialMetadata(input: Metadata | undefined): Metadata {
  return Object.fromEntries(Object.entries(input ?? {}).filter(([, value]) => value !== ''));
}

/**
 * A PATCH's metadata merged into the current one: keys given are set, a key set to `""` is
 * removed, the others stay. The result may hold at most 50 keys, like any metadata.
 */
export function mergeMetadata(current: Metadata, changes: Metadata): Metadata {
  const merged = new Map(Object.entries(current));
  for (const [key, value] of Object.entries(changes)) {
    if (value === '') merged.delete(key);
    else merged.set(key, value);
  }
  if (merged.size > METADATA_LIMITS.keys) {
    throw new ApiError('invalid_parameter', {
      param: 'metadata',
      message:
        `Invalid parameter \`metadata\`: the eSIM would have ${merged.size} keys, more than ${METADATA_LIMITS.keys}. ` + 'Remove keys by setting them to "".',
    });
  }
  return Object.fromEntries(merged);
}

/** Whether two metadata objects hold the same pairs, whatever their key order. */
export function sameMetadata(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/**
 * Keys sorted: jsonb keeps its own order, so answers sort them to read the same
 * whether they were built from the request or from the database.
 */
export function sortedMetadata(metadata: Metadata): Metadata {
  return Object.fromEntries(Object.entries(metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
