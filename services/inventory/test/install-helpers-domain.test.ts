import { appleInstallUrl, isApiError } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { toPublicEsim, type EsimRecord } from '../src/domain/esim.ts';
import { initialMetadata, mergeMetadata, sameMetadata, sortedMetadata } from '../src/domain/metadata.ts';
import { chooseQrMediaType } from '../src/domain/qr-media-type.ts';

describe('apple_install_url', () => {
  it('is Apple’s provisioning link with the activation code URL-encoded, or null without a code', () => {
    expect(appleInstallUrl('LPA:1$sandbox.smdp.invalid$TEST-ABC')).toBe(
      'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24sandbox.smdp.invalid%24TEST-ABC',
    );
    // Every character that means something in a URL is encoded, so the code arrives whole.
    expect(appleInstallUrl('LPA:1$smdp.example.com$A&B=C#D?E/F+G H')).toBe(
      'https://esimsetup.apple.com/esim_qrcode_provisioning?carddata=LPA%3A1%24smdp.example.com%24A%26B%3DC%23D%3FE%2FF%2BG%20H',
    );
    expect(appleInstallUrl(null)).toBeNull();
  });

  it('is on every eSIM answer, from its activation code', () => {
    const record: EsimRecord = {
      id: 'esim_01jd8x7k2m9q4r5s6t7v8w9xyz',
      account_id: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz',
      environment: 'test',
      order_id: 'ord_01jd8x7k2m9q4r5s6t7v8w9xyz',
      iccid: '8988299000000000017',
      state: 'released',
      expired_reason: null,
      bundle: 'esim_5GB_30D_EU',
      data_used_bytes: 0,
      data_limit_bytes: 5_000_000_000,
      thresholds_notified: [],
      activation_code: 'LPA:1$sandbox.smdp.invalid$TEST-ABC',
      smdp_address: 'sandbox.smdp.invalid',
      matching_id: 'TEST-ABC',
      validity_start: 'purchase',
      validity_days: 7,
      expires_at: null,
      install_by: null,
      created_at: 1,
      updated_at: 1,
      metadata: { b: '2', a: '1' },
      test_clock: null,
    };
    expect(toPublicEsim(record)).toMatchObject({ apple_install_url: appleInstallUrl(record.activation_code), metadata: { a: '1', b: '2' } });
    expect(Object.keys(toPublicEsim(record).metadata)).toEqual(['a', 'b']);
    expect(toPublicEsim({ ...record, activation_code: null }).apple_install_url).toBeNull();
  });
});

describe('the QR code image type', () => {
  it.each([
    [undefined, 'image/png'],
    ['', 'image/png'],
    ['image/png', 'image/png'],
    ['image/svg+xml', 'image/svg+xml'],
    ['IMAGE/SVG+XML', 'image/svg+xml'],
    ['image/png;q=0.5, image/svg+xml', 'image/svg+xml'],
    ['image/svg+xml;q=0.4, image/png', 'image/png'],
    ['image/svg+xml; q=0.9, image/png; q=0.8', 'image/svg+xml'],
    ['image/svg+xml;q=0.8, image/png;q=0.8', 'image/png'],
    ['image/*', 'image/png'],
    ['*/*', 'image/png'],
    ['text/html, image/svg+xml;q=0.9', 'image/svg+xml'],
    ['image/*;q=0.2, image/svg+xml', 'image/svg+xml'],
    ['image/svg+xml, image/*;q=0', 'image/svg+xml'],
    ['image/png;q=0, */*', 'image/svg+xml'],
    ['image/png;q=0, image/svg+xml;q=0.1', 'image/svg+xml'],
    ['application/json', 'image/png'],
    ['nonsense', 'image/png'],
    ['image/svg+xml;q=banana', 'image/svg+xml'],
  ] as const)('Accept %j gives %s', (accept, expected) => {
    expect(chooseQrMediaType(accept)).toBe(expected);
  });
});

describe('metadata rules', () => {
  it('drops keys set to "" at purchase', () => {
    expect(initialMetadata({ a: '1', b: '' })).toEqual({ a: '1' });
    expect(initialMetadata(undefined)).toEqual({});
  });

  it('merges a PATCH: keys set, "" removes, others kept', () => {
    expect(mergeMetadata({ a: '1', b: '2' }, { b: '', c: '3', a: '9' })).toEqual({ a: '9', c: '3' });
    expect(mergeMetadata({}, { gone: '' })).toEqual({});
    expect(mergeMetadata({ ['__proto__']: 'x' }, { y: 'z' })).toEqual(
      Object.fromEntries([
        ['__proto__', 'x'],
        ['y', 'z'],
      ]),
    );
  });

  it('refuses a merge of more than 50 keys, naming metadata', () => {
    const current = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
    expect(Object.keys(mergeMetadata(current, { k0: '', extra: 'v' }))).toHaveLength(50);
    try {
      mergeMetadata(current, { extra: 'v' });
      expect.unreachable();
    } catch (error) {
      expect(isApiError(error) && { code: error.code, param: error.param }).toEqual({ code: 'invalid_parameter', param: 'metadata' });
    }
  });

  it('compares and orders pairs whatever the key order', () => {
    expect(sameMetadata({ a: '1', b: '2' }, { b: '2', a: '1' })).toBe(true);
    expect(sameMetadata({ a: '1' }, { a: '2' })).toBe(false);
    expect(sameMetadata({ a: '1' }, { a: '1', b: '2' })).toBe(false);
    expect(Object.keys(sortedMetadata({ b: '1', a: '2', aa: '3' }))).toEqual(['a', 'aa', 'b']);
  });
});
