import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { assertStrongSecrets, ConfigError, loadServiceConfig, secretWeakness, serviceConfigSchema } from '../src/index.ts';

/** Secrets are 32 random bytes or more; production processes refuse any other (record 0226). */
describe('secretWeakness', () => {
  test.each([
    ['a 16-character token of any content', 'internal-token-1'],
    ['24 random bytes', randomBytes(24).toString('base64url')],
    ['31 random bytes in hex', randomBytes(31).toString('hex')],
    ['one character repeated', 'a'.repeat(64)],
    ['a short pattern repeated', '0123456789abcdef'.repeat(4)],
    ['a word repeated', 'password'.repeat(8)],
    ['an alphabet in order', 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'],
    ['two symbols', 'ab'.repeat(40)],
    ['a hex digit pair pattern', 'deadbeef'.repeat(8)],
  ])('refuses %s', (_what, value) => {
    expect(secretWeakness(value)).toBeDefined();
  });

  test('accepts every value `openssl rand` gives: 32 bytes in hex, base64 and base64url (5,000 of each)', () => {
    const refused: string[] = [];
    for (let i = 0; i < 5_000; i += 1) {
      const bytes = randomBytes(32);
      for (const value of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
        if (secretWeakness(value) !== undefined) refused.push(value);
      }
    }
    expect(refused).toEqual([]);
  });

  test('accepts longer random values and long random passphrases', () => {
    expect(secretWeakness(randomBytes(48).toString('base64'))).toBeUndefined();
    expect(secretWeakness('correct horse battery staple, 9 Purple Ostriches sing at dawn!')).toBeUndefined();
  });
});

describe('strong secrets in production', () => {
  const strong = () => randomBytes(32).toString('base64url');

  test('assertStrongSecrets names every weak setting, and checks each key of a list', () => {
    try {
      assertStrongSecrets({ INTERNAL_TOKEN: 'internal-token-1', CURSOR_SECRET: strong(), WEBHOOK_SECRET_KEY: `${strong()},${'0'.repeat(64)}` });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(/INTERNAL_TOKEN/);
      expect((error as Error).message).toMatch(/WEBHOOK_SECRET_KEY/);
      expect((error as Error).message).not.toMatch(/CURSOR_SECRET/);
    }
  });

  test('a production service refuses a weak token, and starts with strong secrets and a metrics token', () => {
    const schema = serviceConfigSchema(8081);
    const base = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/x', METRICS_TOKEN: strong() };
    expect(() => loadServiceConfig(schema, { ...base, INTERNAL_TOKEN: 'sixteen-chars-ok' })).toThrow(/INTERNAL_TOKEN: must be 32 random bytes/);
    expect(() => loadServiceConfig(schema, { ...base, INTERNAL_TOKEN: 'x'.repeat(64) })).toThrow(/INTERNAL_TOKEN: is not random/);
    expect(() => loadServiceConfig(schema, { ...base, INTERNAL_TOKEN: strong(), METRICS_TOKEN: '' })).toThrow(/METRICS_TOKEN is required/);
    expect(loadServiceConfig(schema, { ...base, INTERNAL_TOKEN: strong() }).NODE_ENV).toBe('production');
    // Outside production (tests, a laptop) the short fixed tokens of the test suites still do.
    expect(loadServiceConfig(schema, { DATABASE_URL: 'postgres://db/x', INTERNAL_TOKEN: 'sixteen-chars-ok' }).INTERNAL_TOKEN).toBe('sixteen-chars-ok');
  });
});
