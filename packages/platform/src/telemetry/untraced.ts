const UNTRACED = Symbol.for('connectivity.untraced-request');

/**
 * Marks the options of a `node:http(s)` request as not traced by the HTTP instrumentation: no
 * client span, no `traceparent` header sent, no metric labelled with its host and port. For
 * calls to third parties a tenant chooses (webhook endpoints): our trace ids are not theirs to
 * see, and their hosts must not become metric series. The caller records its own span.
 */
export function untracedRequest<T extends object>(options: T): T {
  return Object.assign(options, { [UNTRACED]: true });
}

/** Whether request options were marked by `untracedRequest` (the instrumentation's ignore hook). */
export const isUntracedRequest = (options: object): boolean => (options as Record<symbol, unknown>)[UNTRACED] === true;
