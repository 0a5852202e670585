import { createHash } from 'node:crypto';

/**
 * What makes two requests "the same" for idempotency: method, path (with query) and the raw
 * body bytes. Raw bytes rather than parsed JSON, so a retry must resend exactly what it sent.
 */
export function requestFingerprint(method: string, pathWithQuery: string, body: Buffer | undefined): string {
  const hash = createHash('sha256');
  hash.update(method.toUpperCase());
  hash.update('\n');
  hash.update(pathWithQuery);
  hash.update('\n');
  if (body) hash.update(body);
  return hash.digest('hex');
}
