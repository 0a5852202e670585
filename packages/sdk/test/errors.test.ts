import { ERROR_CATALOGUE, ERROR_CODES } from '@connectivity/contracts';
import { describe, expect, expectTypeOf, test } from 'vitest';
import {
  backoffMs,
  ConnectivityError,
  ERROR_CLASSES,
  errorFromResponse,
  parseRetryAfter,
  retryVerdict,
  UnexpectedResponseError,
  type CodeOfType,
  type RateLimitError,
} from '../src/index.ts';

describe('typed errors', () => {
  const headers = new Headers({ 'request-id': 'req_0123456789abcdefghijkl', 'retry-after': '7' });

  test('every code of the catalogue becomes the class of its type, with the catalogue’s status', () => {
    for (const code of ERROR_CODES) {
      const { type, status } = ERROR_CATALOGUE[code];
      const body = { error: { type, code, message: 'm', link: `https://api.example.test/v1/errors/${code}` } };
      const error = errorFromResponse({ status, headers, body });
      expect(error).toBeInstanceOf(ERROR_CLASSES[type]);
      expect(error).toBeInstanceOf(ConnectivityError);
      expect(error).toMatchObject({ status, type, code, requestId: 'req_0123456789abcdefghijkl', retryAfterSeconds: 7 });
    }
  });

  test('the subclasses narrow `code` to the codes of their type', () => {
    expectTypeOf<RateLimitError['code']>().toEqualTypeOf<'rate_limited'>();
    expectTypeOf<CodeOfType<'authentication'>>().toEqualTypeOf<'key_missing' | 'key_invalid' | 'key_revoked' | 'signature_invalid'>();
  });

  test('a body that is not the contract’s error object is an UnexpectedResponseError', () => {
    expect(errorFromResponse({ status: 502, headers, body: '<html>Bad Gateway</html>' })).toBeInstanceOf(UnexpectedResponseError);
    const unknownCode = { error: { type: 'conflict', code: 'brand_new_code', message: 'm', link: 'https://api.example.test/v1/errors/x' } };
    expect(errorFromResponse({ status: 409, headers, body: unknownCode })).toBeInstanceOf(UnexpectedResponseError);
  });
});

describe('the retry policy', () => {
  const error = (message: string) => ({
    error: { type: 'conflict', code: 'idempotency_key_reused', message, link: 'https://x.test/v1/errors/idempotency_key_reused' },
  });
  const none = new Headers();

  test('429 and 5xx are retried, with the Retry-After the service names', () => {
    expect(retryVerdict(429, new Headers({ 'retry-after': '12' }), {})).toEqual({ retry: true, retryAfterMs: 12_000 });
    expect(retryVerdict(503, none, {})).toEqual({ retry: true, retryAfterMs: undefined });
    expect(retryVerdict(500, none, {})).toEqual({ retry: true, retryAfterMs: undefined });
  });

  test('409 is retried only for a duplicate in progress', () => {
    expect(retryVerdict(409, none, error('A request with this Idempotency-Key is still in progress. Retry later.')).retry).toBe(true);
    expect(retryVerdict(409, new Headers({ 'retry-after': '1' }), error('Busy.'))).toEqual({ retry: true, retryAfterMs: 1000 });
    expect(retryVerdict(409, none, error('This Idempotency-Key was already used for a different request.')).retry).toBe(false);
    expect(retryVerdict(409, none, { error: { code: 'invalid_state_transition', message: 'expired is final' } }).retry).toBe(false);
  });

  test('other statuses and replayed stored answers are final', () => {
    for (const status of [200, 201, 400, 401, 402, 403, 404]) expect(retryVerdict(status, none, {}).retry).toBe(false);
    expect(retryVerdict(500, new Headers({ 'idempotent-replayed': 'true' }), {}).retry).toBe(false);
  });

  test('Retry-After is read as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:15:30Z');
    expect(parseRetryAfter('5', now)).toBe(5);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:15:40 GMT', now)).toBe(10);
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:15:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  test('backoff is full jitter under a doubling cap', () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 8_000 };
    expect([0, 1, 2, 3, 4, 5, 10].map((retry) => backoffMs(retry, { ...policy, random: () => 0.999999 }))).toEqual([499, 999, 1999, 3999, 7999, 7999, 7999]);
    expect(backoffMs(3, { ...policy, random: () => 0 })).toBe(0);
  });
});
