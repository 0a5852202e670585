import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

/**
 * What makes two requests "the same" for idempotency: method, path (with query) and the
 * request's parameters. A JSON body counts as its canonical form (RFC 8785: keys sorted, no
 * whitespace), as Stripe compares parameters rather than bytes: the same parameters sent with
 * their keys in another order, or spaced otherwise, are the same request; any other difference
 * is not. A body that is not JSON counts as its bytes. `parsed` is the body already parsed, when
 * the caller has it (so it is not parsed twice).
 */
export function requestFingerprint(method: string, pathWithQuery: string, body: Buffer | undefined, parsed?: unknown): string {
  const hash = createHash('sha256');
  hash.update(method.toUpperCase());
  hash.update('\n');
  hash.update(pathWithQuery);
  hash.update('\n');
  if (body && body.length > 0) hash.update(canonicalBody(body, parsed));
  return hash.digest('hex');
}

function canonicalBody(body: Buffer, parsed: unknown): Buffer | string {
  try {
    const value = parsed === undefined ? (JSON.parse(body.toString('utf8')) as unknown) : parsed;
    return canonicalize(value) ?? body;
  } catch {
    // Not JSON (or not representable canonically): the bytes are the parameters.
    return body;
  }
}
