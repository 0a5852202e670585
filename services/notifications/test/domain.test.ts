import { describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/domain/address-policy.ts';
import { classifyAttempt, parseRetryAfterMs } from '../src/domain/delivery-outcome.ts';
import { endpointWants, normalizeEnabledEvents } from '../src/domain/enabled-events.ts';
import { checkEndpointUrl, egressPolicy, NOT_PUBLIC_MESSAGE } from '../src/domain/endpoint-url.ts';
import { networkFailure } from '../src/domain/network-failure.ts';
import { replaySelection } from '../src/domain/replay-selection.ts';
import { DEFAULT_RETRY_SCHEDULE_MS, maxAttempts, nextRetryDelayMs } from '../src/domain/retry-policy.ts';

describe('retry policy', () => {
  const policy = { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, jitter: 0.2, maxRetryAfterMs: 3_600_000 };

  it('is the Standard Webhooks schedule: 10 attempts over about 3 days', () => {
    expect(maxAttempts(policy)).toBe(10);
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total / 86_400_000).toBeCloseTo(3.12, 1);
  });

  it('spreads each delay by at most the jitter, and stops after the last attempt', () => {
    expect(nextRetryDelayMs(policy, 1, undefined, () => 0)).toBe(4_000);
    expect(nextRetryDelayMs(policy, 1, undefined, () => 1)).toBe(6_000);
    expect(nextRetryDelayMs(policy, 2, undefined, () => 0.5)).toBe(300_000);
    expect(nextRetryDelayMs(policy, 9, undefined, () => 0.5)).toBe(86_400_000);
    expect(nextRetryDelayMs(policy, 10, undefined)).toBeNull();
  });

  it('waits at least the Retry-After asked for, up to the cap', () => {
    expect(nextRetryDelayMs(policy, 1, 60_000, () => 0.5)).toBe(60_000);
    expect(nextRetryDelayMs(policy, 1, 1_000, () => 0.5)).toBe(5_000);
    expect(nextRetryDelayMs(policy, 1, 99 * 3_600_000, () => 0.5)).toBe(3_600_000);
  });
});

describe('delivery outcome', () => {
  const response = (statusCode: number, retryAfter?: string) => ({ kind: 'response' as const, statusCode, retryAfter, durationMs: 5 });

  it('succeeds on any 2xx only', () => {
    expect(classifyAttempt(response(200), 0).succeeded).toBe(true);
    expect(classifyAttempt(response(299), 0).succeeded).toBe(true);
    expect(classifyAttempt(response(301), 0).succeeded).toBe(false);
    expect(classifyAttempt({ kind: 'error', failure: 'connection_refused', detail: 'ECONNREFUSED', durationMs: 1 }, 0)).toMatchObject({
      succeeded: false,
      statusCode: null,
      error: 'connection_refused',
    });
    expect(classifyAttempt(response(500), 0)).toMatchObject({ error: 'http_status', statusCode: 500 });
  });

  it('honours Retry-After on 429 and 503 only, and disables on 410', () => {
    expect(classifyAttempt(response(429, '7'), 0)).toMatchObject({ retryAfterMs: 7_000 });
    expect(classifyAttempt(response(503, '7'), 0)).toMatchObject({ retryAfterMs: 7_000 });
    expect(classifyAttempt(response(500, '7'), 0)).toMatchObject({ retryAfterMs: undefined });
    expect(classifyAttempt(response(410), 0)).toMatchObject({ disableReason: expect.stringContaining('410') });
    expect(classifyAttempt(response(404), 0)).toMatchObject({ disableReason: undefined });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfterMs('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a9fe:a9fe',
    'not-an-ip',
    // IPv4 embedded in IPv6: compatible, translated, 6to4, Teredo, local-use NAT64.
    '::127.0.0.1',
    '::7f00:1',
    '[::127.0.0.1]',
    '::ffff:0:7f00:1',
    '::ffff:0:808:808',
    '2002:7f00:1::',
    '2002:808:808::1',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '64:ff9b:1::808:808',
    // Documentation, benchmarking and other ranges that are no public host.
    '2001:db8::1',
    '2001:2::1',
    '3fff::1',
    '5f00::1',
    '100::1',
    'ff02::1',
    '192.0.2.1',
    '198.18.0.1',
    '192.88.99.1',
    // Not canonical: never judged as the address a lenient parser would read.
    '0x7f000001',
    '127.1',
    '2130706433',
    'fe80::1%eth0',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '::ffff:808:808', '64:ff9b::808:808', '[2606:4700:4700::1111]'])(
    'allows %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('endpoint URL', () => {
  it('lets test endpoints use http and, where private addresses are allowed, localhost; live ones need https and no local host', () => {
    expect(egressPolicy('test', true)).toBe('any');
    expect(egressPolicy('test', false)).toBe('public');
    expect(egressPolicy('live', true)).toBe('public');
    expect(checkEndpointUrl('http://localhost:3000/hook#frag', 'test', 'any').toString()).toBe('http://localhost:3000/hook');
    expect(() => checkEndpointUrl('http://localhost:3000/hook', 'test', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    expect(() => checkEndpointUrl('http://[::ffff:0:7f00:1]/', 'test', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    expect(checkEndpointUrl('http://hooks.example.com/x', 'test', 'public').protocol).toBe('http:');
    expect(() => checkEndpointUrl('http://example.com/', 'live', 'public')).toThrow(/https/);
    expect(() => checkEndpointUrl('https://localhost/', 'live', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    expect(() => checkEndpointUrl('https://[::1]/', 'live', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    expect(() => checkEndpointUrl('https://metadata.google.internal/', 'live', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    // The URL parser reads every IPv4 spelling as the canonical address, so none slips past.
    expect(() => checkEndpointUrl('https://0x7f000001/', 'live', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    expect(() => checkEndpointUrl('https://2130706433/', 'live', 'public')).toThrow(NOT_PUBLIC_MESSAGE);
    expect(checkEndpointUrl('https://hooks.example.com/x', 'live', 'public').host).toBe('hooks.example.com');
  });
});

describe('network failures', () => {
  it('are shown as a class, whatever the socket said', () => {
    expect(networkFailure('ECONNREFUSED')).toBe('connection_refused');
    expect(networkFailure('ETIMEDOUT')).toBe('timeout');
    for (const code of [
      'ERR_TLS_CERT_ALTNAME_INVALID',
      'CERT_HAS_EXPIRED',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'ERR_SSL_WRONG_VERSION_NUMBER',
      'EPROTO',
    ]) {
      expect(networkFailure(code)).toBe('tls_error');
    }
    for (const code of ['ECONNRESET', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', undefined]) expect(networkFailure(code)).toBe('connection_error');
  });
});

describe('enabled events', () => {
  it('accepts known types or ["*"] alone, dropping repeats', () => {
    expect(normalizeEnabledEvents(['esim.expired', 'esim.expired'])).toEqual(['esim.expired']);
    expect(normalizeEnabledEvents(['*'])).toEqual(['*']);
    expect(() => normalizeEnabledEvents(['*', 'esim.expired'])).toThrow();
    expect(() => normalizeEnabledEvents(['esim.nope'])).toThrow();
    expect(() => normalizeEnabledEvents([])).toThrow();
  });

  it('matches by type or wildcard', () => {
    expect(endpointWants(['*'], 'api_key.revoked')).toBe(true);
    expect(endpointWants(['esim.expired'], 'esim.expired')).toBe(true);
    expect(endpointWants(['esim.expired'], 'esim.released')).toBe(false);
  });
});

describe('replay selection', () => {
  it('is one event, a since, or the last 24 hours; never both', () => {
    expect(replaySelection({ event: 'evt_x' }, 100_000)).toEqual({ kind: 'event', eventId: 'evt_x' });
    expect(replaySelection({ since: 5 }, 100_000)).toEqual({ kind: 'since', since: 5 });
    expect(replaySelection({}, 100_000)).toEqual({ kind: 'since', since: 100_000 - 86_400 });
    expect(() => replaySelection({ since: 5, event: 'evt_x' }, 100_000)).toThrow();
  });
});
