import { ConfigError } from './config.ts';

/**
 * Every secret a process is given (tokens, passwords, signing keys) must be 32 random bytes or
 * more: 64 hex characters, or 43 base64 characters (`openssl rand -hex 32`, `openssl rand
 * -base64 32`). A value is measured by what it could hold (its length in the smallest alphabet
 * it is written in) and then by what it does hold: a value made of few symbols, of a short
 * repeated pattern or of runs of neighbouring characters is not random, however long
 * (docs/decisions/0226-secrets-refused-when-short-or-not-random.md).
 */
export const MIN_SECRET_BYTES = 32;

/** The settings holding secrets, checked at start of a process in production. */
export const SECRET_SETTINGS = [
  'INTERNAL_TOKEN',
  'ADMIN_INTERNAL_TOKEN',
  'ADMIN_TOKEN',
  'CURSOR_SECRET',
  'METRICS_TOKEN',
  'NATS_PASSWORD',
  'WEBHOOK_SECRET_KEY',
] as const;

const HEX = /^[0-9a-fA-F]+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Bits a value can carry at most: its length times the bits of a symbol of its alphabet. */
function capacityBits(value: string): number {
  if (HEX.test(value)) return value.length * 4;
  if (BASE64.test(value)) return value.replace(/=+$/, '').length * 6;
  // Any other printable text: at most log2(95) bits a character.
  return value.length * Math.log2(95);
}

/** Shannon entropy of the value's own symbol counts, times its length. */
function observedBits(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let perSymbol = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    perSymbol -= p * Math.log2(p);
  }
  return perSymbol * value.length;
}

/** Share of the value's 3-character windows that occur more than once (a repeated pattern). */
function repeatedShare(value: string): number {
  const windows = value.length - 2;
  if (windows <= 0) return 0;
  const seen = new Set<string>();
  for (let i = 0; i < windows; i += 1) seen.add(value.slice(i, i + 3));
  return 1 - seen.size / windows;
}

/** Share of neighbouring characters whose codes differ by at most one (`abcdef`, `aaaa`, `0123`). */
function sequentialShare(value: string): number {
  let steps = 0;
  for (let i = 1; i < value.length; i += 1) if (Math.abs(value.charCodeAt(i) - value.charCodeAt(i - 1)) <= 1) steps += 1;
  return value.length > 1 ? steps / (value.length - 1) : 0;
}

/**
 * Why `value` is not a usable secret, or undefined when it is. The thresholds are far from what
 * random values give (32 random bytes carry about 200 observed bits in base64, 240 in hex; a
 * pattern repeats in about 1 % of their windows; a fifth of their neighbours are close at most),
 * so a value from `openssl rand` always passes.
 */
export function secretWeakness(value: string): string | undefined {
  const needed = MIN_SECRET_BYTES * 8;
  if (capacityBits(value) < needed) {
    return `must be ${MIN_SECRET_BYTES} random bytes or more (64 hex or 43 base64 characters, e.g. \`openssl rand -hex ${MIN_SECRET_BYTES}\`)`;
  }
  if (observedBits(value) < needed / 2 || repeatedShare(value) > 0.25 || sequentialShare(value) > 0.5) {
    return 'is not random: it repeats a pattern, uses few characters or runs through neighbouring ones; generate it (e.g. `openssl rand -hex 32`)';
  }
  return undefined;
}

/** Throws a ConfigError naming every secret setting of `config` that is set and weak. */
export function assertStrongSecrets(config: Record<string, unknown>, names: readonly string[] = SECRET_SETTINGS): void {
  const problems: string[] = [];
  for (const name of names) {
    const value = config[name];
    if (typeof value !== 'string' || value === '') continue;
    // A list of old keys (a rotation) is checked key by key.
    for (const part of value.split(',')) {
      const weakness = secretWeakness(part.trim());
      if (weakness) problems.push(`  - ${name}: ${weakness}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
}

/** Production processes refuse weak secrets; tests and the embedded form keep short fixed ones. */
export const isProduction = (config: { NODE_ENV?: string }): boolean => config.NODE_ENV === 'production';
