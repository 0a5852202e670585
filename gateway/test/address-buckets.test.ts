import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/common-route-tests.ts';
import { startHarness, type Harness } from './support/harness.ts';

/**
 * The address budget of requests without a key, as an IPv6 client meets it (record 0202): behind
 * a trusted proxy (TRUST_PROXY=loopback) the client is the X-Forwarded-For address; five
 * requests a minute per address here.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '5', TRUST_PROXY: 'loopback' });
});
afterAll(async () => {
  await h?.close();
});

let prefix = 0x100;
/** A /64 nobody else in this file uses. */
const freshPrefix = () => `2001:db8:${(prefix += 1).toString(16)}:7`;
const from = (client: string) => request(h.app).get('/v1/esim').set('X-Forwarded-For', client);

describe('IPv6 clients are counted per /64', () => {
  it('rotating addresses within one /64 share its budget', async () => {
    const net = freshPrefix();
    for (let i = 1; i <= 5; i += 1) expectError(await from(`${net}::${i.toString(16)}`), 401, 'key_missing');
    const refused = await from(`${net}:dead:beef:1:2`);
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('another /64 keeps its own budget', async () => {
    const spent = freshPrefix();
    for (let i = 1; i <= 6; i += 1) await from(`${spent}::${i}`);
    expectError(await from(`${spent}::99`), 429, 'rate_limited');
    expectError(await from(`${freshPrefix()}::1`), 401, 'key_missing');
  });
});

describe('IPv4 clients', () => {
  it('are counted per address, as before: a neighbour is not refused', async () => {
    for (let i = 0; i < 5; i += 1) expectError(await from('198.51.100.7'), 401, 'key_missing');
    expectError(await from('198.51.100.7'), 429, 'rate_limited');
    expectError(await from('198.51.100.8'), 401, 'key_missing');
  });

  it('an IPv4-mapped IPv6 address is the IPv4 client itself: one budget for both forms', async () => {
    for (let i = 0; i < 3; i += 1) expectError(await from('203.0.113.9'), 401, 'key_missing');
    for (let i = 0; i < 2; i += 1) expectError(await from('::ffff:203.0.113.9'), 401, 'key_missing');
    expectError(await from('::ffff:203.0.113.9'), 429, 'rate_limited');
    expectError(await from('203.0.113.9'), 429, 'rate_limited');
    // The mapped form of a neighbour is that neighbour, with its own budget.
    expectError(await from('::ffff:203.0.113.10'), 401, 'key_missing');
  });
});
