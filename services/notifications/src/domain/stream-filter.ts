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
