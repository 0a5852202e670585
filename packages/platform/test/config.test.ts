import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import { commonConfigSchema, ConfigError, hasPrefix, loadServiceConfig, newId, parseConfig, serviceConfigSchema } from '../src/index.ts';

describe('parseConfig', () => {
  test('applies defaults and treats empty strings as unset', () => {
    const config = parseConfig(commonConfigSchema, { DATABASE_URL: '', NATS_URL: '' });
    expect(config).toMatchObject({ LOG_LEVEL: 'info', DATA_DIR: './.data', DATABASE_URL: undefined, NATS_URL: undefined });
  });

  test('fails fast, naming every bad variable', () => {
    const schema = commonConfigSchema.extend({ PORT: z.coerce.number().int() });
    expect(() => parseConfig(schema, { LOG_LEVEL: 'loud', DATABASE_URL: 'not a url', PORT: 'eighty' })).toThrowError(ConfigError);
    try {
      parseConfig(schema, { LOG_LEVEL: 'loud', DATABASE_URL: 'not a url', PORT: 'eighty' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain('LOG_LEVEL');
      expect(message).toContain('DATABASE_URL');
      expect(message).toContain('PORT');
    }
  });

  test('NATS_URL takes one server or every server of a cluster; NATS_STREAM_REPLICAS a small count', () => {
    const cluster = 'nats://nats-1:4222,nats://nats-2:4222, nats://nats-3:4222';
    expect(parseConfig(commonConfigSchema, { NATS_URL: cluster, NATS_STREAM_REPLICAS: '3' })).toMatchObject({ NATS_URL: cluster, NATS_STREAM_REPLICAS: 3 });
    expect(parseConfig(commonConfigSchema, { NATS_STREAM_REPLICAS: '' }).NATS_STREAM_REPLICAS).toBeUndefined();
    expect(() => parseConfig(commonConfigSchema, { NATS_URL: 'nats://nats-1:4222,nats-2' })).toThrowError(/NATS_URL/);
    expect(() => parseConfig(commonConfigSchema, { NATS_STREAM_REPLICAS: '7' })).toThrowError(/NATS_STREAM_REPLICAS/);
  });

  test('a service config generates an internal token only in the embedded mode', () => {
    const schema = serviceConfigSchema(8081);
    const embedded = loadServiceConfig(schema, {});
    expect(embedded.PORT).toBe(8081);
    expect(embedded.INTERNAL_TOKEN?.length).toBeGreaterThanOrEqual(16);
    const distributed = loadServiceConfig(schema, { DATABASE_URL: 'postgres://db/x' });
    expect(distributed.INTERNAL_TOKEN).toBeUndefined();
  });
});

describe('newId', () => {
  test('prefix, underscore, 26 lowercase time-sortable characters', () => {
    const first = newId('esim', 1_000);
    const second = newId('esim', 2_000);
    expect(first).toMatch(/^esim_[0-9a-z]{26}$/);
    expect(first < second).toBe(true);
    expect(hasPrefix(first, 'esim')).toBe(true);
    expect(hasPrefix(first, 'order')).toBe(false);
    expect(newId('order')).toMatch(/^ord_/);
    expect(newId('webhookAttempt')).toMatch(/^msgatt_/);
  });

  test('the random part is uniform over the alphabet and does not repeat (pooled CSPRNG bytes)', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('request', 1_000).slice(14));
    expect(new Set(ids).size).toBe(ids.length);
    const counts = new Map<string, number>();
    for (const id of ids) for (const char of id) counts.set(char, (counts.get(char) ?? 0) + 1);
    // 32 symbols, 320,000 draws: each close to 10,000.
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(Math.abs(count - 10_000)).toBeLessThan(800);
  });
});
