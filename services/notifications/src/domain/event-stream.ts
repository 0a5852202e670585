import { ApiError, type Environment } from '@connectivity/contracts';

/** Only the sandbox has a stream (record 0257): live events get no entries. */
export const STREAMED_ENVIRONMENT: Environment = 'test';

/** A caller of another environment has no stream to open: refused whatever else it sent. */
export function assertStreamed(environment: Environment): void {
  if (environment !== STREAMED_ENVIRONMENT) throw new ApiError('live_key_test_resource');
}

/**
 * The `types` filter of the event stream: exact types, prefixes ending in `.*` (`esim.*` matches
 * `esim.released` and `esim.usage.threshold`), or `*`. No filter lets every type through.
 */
export function streamTypeFilter(types: string | undefined): (type: string) => boolean {
  if (types === undefined) return () => true;
  const patterns = types.split(',');
  if (patterns.includes('*')) return () => true;
  const exact = new Set(patterns.filter((pattern) => !pattern.endsWith('.*')));
  const prefixes = patterns.filter((pattern) => pattern.endsWith('.*')).map((pattern) => pattern.slice(0, -1));
  return (type) => exact.has(type) || prefixes.some((prefix) => type.startsWith(prefix));
}
