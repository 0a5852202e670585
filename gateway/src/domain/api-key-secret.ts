import { createHash, randomInt } from 'node:crypto';
import type { Environment } from '@connectivity/contracts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 base62 characters: about 190 bits of entropy, far beyond guessing. */
const SECRET_BODY_LENGTH = 32;
const SECRET_PATTERN = /^sk_(test|live)_[0-9A-Za-z]{24,128}$/;

export const secretPrefix = (environment: Environment): string => `sk_${environment}_`;

/** A new secret: `sk_<environment>_` + 32 random base62 characters from the CSPRNG. */
export function generateSecret(environment: Environment): string {
  let body = '';
  for (let i = 0; i < SECRET_BODY_LENGTH; i += 1) body += ALPHABET[randomInt(ALPHABET.length)];
  return secretPrefix(environment) + body;
}

/** The environment a well-formed secret belongs to, or undefined for anything else. */
export function secretEnvironment(secret: string): Environment | undefined {
  const match = SECRET_PATTERN.exec(secret);
  return match ? (match[1] as Environment) : undefined;
}

/** Only this hash is stored; a lookup by it is an index probe, compared by the database. */
export const hashSecret = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

/** What a key record may show of its secret (record 0251: first 12 characters and last 4). */
export function secretHints(secret: string): { prefix: string; last4: string } {
  return { prefix: secret.slice(0, 12), last4: secret.slice(-4) };
}

/**
 * The token of an `Authorization: Bearer <token>` header, or undefined when the header is
 * absent or not of that form (both are `key_missing`).
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
