import { describe, expect, it } from 'vitest';
import { addressKey } from '../src/domain/client-address.ts';

describe('addressKey (record 0202)', () => {
  it('an IPv4 address is counted as it is', () => {
    expect(addressKey('192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('10.0.0.255')).toBe('10.0.0.255');
  });

  it('IPv6 addresses are counted per /64, however they are written', () => {
    const key = '2001:db8:1:2::/64';
    expect(addressKey('2001:db8:1:2::1')).toBe(key);
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:0DB8:0001:0002:0000:0000:0000:0abc')).toBe(key);
    expect(addressKey('2001:db8:1:2:a:b:c:d%eth0')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('an IPv4-mapped IPv6 address is its IPv4 address; other embedded forms stay IPv6', () => {
    expect(addressKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(addressKey('::FFFF:c000:201')).toBe('192.0.2.1');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('what is not an address is counted as it comes', () => {
    expect(addressKey('unknown')).toBe('unknown');
    expect(addressKey('')).toBe('');
  });
});
