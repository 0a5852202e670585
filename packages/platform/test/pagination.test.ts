import { isApiError } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../src/config.ts';
import { createCursorCodec, resolveCursorSecret, toPage } from '../src/pagination/index.ts';

const SECRET = 'a-test-secret-of-at-least-32-characters!';
const position = z.object({ created_at: z.number().int(), id: z.string() });
const binding = { list: 'esims', account: 'acct_1', environment: 'test' };

function expectInvalidCursor(fn: () => unknown): void {
  try {
    fn();
  } catch (error) {
    expect(isApiError(error)).toBe(true);
    if (!isApiError(error)) return;
    expect(error.code).toBe('invalid_parameter');
    expect(error.param).toBe('cursor');
    return;
  }
  throw new Error('expected an invalid cursor error');
}

describe('cursor codec', () => {
  const codec = createCursorCodec(SECRET);

  it('round-trips a position under the same binding', () => {
    const cursor = codec.encode({ created_at: 1_790_000_000, id: 'esim_01' }, binding);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor, binding, position)).toEqual({ created_at: 1_790_000_000, id: 'esim_01' });
  });

  it('ignores key order and absent values in the binding', () => {
    const cursor = codec.encode('esim_5GB', { b: 'x', a: ['GB', 'FR'], c: undefined });
    expect(codec.decode(cursor, { a: ['GB', 'FR'], b: 'x' }, z.string())).toBe('esim_5GB');
  });

  it('refuses a cursor bound to another account, environment, list or filter', () => {
    const cursor = codec.encode({ created_at: 1, id: 'esim_01' }, binding);
    for (const other of [
      { ...binding, account: 'acct_2' },
      { ...binding, environment: 'live' },
      { ...binding, list: 'events' },
      { ...binding, region: 'europe' },
    ]) {
      expectInvalidCursor(() => codec.decode(cursor, other, position));
    }
  });

  it('refuses an altered payload or signature', () => {
    const cursor = codec.encode({ created_at: 1, id: 'esim_01' }, binding);
    const [payload = '', signature = ''] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, p: { created_at: 2, id: 'esim_02' } })).toString('base64url');
    expectInvalidCursor(() => codec.decode(`${forged}.${signature}`, binding, position));
    const flipped = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expectInvalidCursor(() => codec.decode(`${payload}.${flipped}`, binding, position));
    expectInvalidCursor(() => codec.decode(`${payload}.${signature.slice(0, 10)}`, binding, position));
  });

  it('refuses a cursor signed with another secret', () => {
    const foreign = createCursorCodec('another-secret-of-at-least-32-characters').encode({ created_at: 1, id: 'x' }, binding);
    expectInvalidCursor(() => codec.decode(foreign, binding, position));
  });

  it('refuses malformed input', () => {
    for (const bad of ['', 'abc', 'a.b.c', '!!!.???', 'x'.repeat(5_000)]) {
      expectInvalidCursor(() => codec.decode(bad, binding, position));
    }
  });

  it('refuses a well-signed position of the wrong shape', () => {
    const cursor = codec.encode({ name: 'not a position' }, binding);
    expectInvalidCursor(() => codec.decode(cursor, binding, position));
  });

  it('refuses a short secret', () => {
    expect(() => createCursorCodec('short')).toThrow(TypeError);
  });
});

describe('resolveCursorSecret', () => {
  it('uses the configured secret', () => {
    expect(resolveCursorSecret({ CURSOR_SECRET: SECRET })).toBe(SECRET);
  });
  it('makes a random one in embedded mode', () => {
    const a = resolveCursorSecret({});
    expect(a.length).toBeGreaterThanOrEqual(32);
    expect(resolveCursorSecret({})).not.toBe(a);
  });
  it('demands one with a database server', () => {
    expect(() => resolveCursorSecret({ DATABASE_URL: 'postgres://db/x' })).toThrow(ConfigError);
  });
});

describe('toPage', () => {
  it('shows limit items and a cursor after the last when one more exists', () => {
    const page = toPage([1, 2, 3], 2, (last) => `after-${last}`);
    expect(page).toEqual({ object: 'list', data: [1, 2], has_more: true, next_cursor: 'after-2' });
  });
  it('has no cursor on the last page', () => {
    expect(toPage([1, 2], 2, String)).toEqual({ object: 'list', data: [1, 2], has_more: false, next_cursor: null });
    expect(toPage([], 2, String)).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });
});
