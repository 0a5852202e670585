import { REGIONS } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { SANDBOX_BUNDLES, SANDBOX_ONLY_BUNDLES } from '../src/db/migrations/sandbox-bundles.ts';
import { SANDBOX_SMDP_ADDRESS, activationCode, sandboxMatchingId } from '../src/domain/activation-code.ts';
import { matchesFilter } from '../src/domain/bundle.ts';
import { isValidIccid, luhnCheckDigit, makeIccid, sandboxIccid } from '../src/domain/iccid.ts';
import { retailPriceCents } from '../src/domain/pricing.ts';
import { countriesOf, regionOfCountry } from '../src/domain/regions.ts';

describe('ICCID', () => {
  it('computes the Luhn check digit', () => {
    // Published Luhn examples: 7992739871-3 and the test card number 4539 1488 0343 6467.
    expect(luhnCheckDigit('7992739871')).toBe('3');
    expect(luhnCheckDigit('453914880343646')).toBe('7');
    expect(isValidIccid(makeIccid('42', '00000000001'))).toBe(true);
  });

  it('makes 19-digit ICCIDs of the international range that validate', () => {
    const iccid = sandboxIccid((n) => '7'.repeat(n));
    expect(iccid).toMatch(/^8988299\d{12}$/);
    expect(iccid).toHaveLength(19);
    expect(isValidIccid(iccid)).toBe(true);
  });

  it('rejects a wrong check digit, a wrong prefix and a wrong length', () => {
    const iccid = makeIccid('99', '12345678901');
    const wrong = iccid.slice(0, 18) + String((Number(iccid[18]) + 1) % 10);
    expect(isValidIccid(wrong)).toBe(false);
    expect(isValidIccid(`12${iccid.slice(2)}`)).toBe(false);
    expect(isValidIccid(iccid.slice(0, 18))).toBe(false);
    expect(() => makeIccid('9', '12345678901')).toThrow(TypeError);
    expect(() => makeIccid('99', '123')).toThrow(TypeError);
  });

  it('catches every single-digit error', () => {
    const iccid = makeIccid('99', '31415926535');
    for (let i = 0; i < 18; i += 1) {
      const d = Number(iccid[i]);
      const changed = iccid.slice(0, i) + String((d + 1) % 10) + iccid.slice(i + 1);
      if (changed.startsWith('89882')) expect(isValidIccid(changed)).toBe(false);
    }
  });
});

describe('activation code', () => {
  it('is an LPA string of the SM-DP+ address and matching id', () => {
    expect(activationCode('smdp.example', 'ABC')).toBe('LPA:1$smdp.example$ABC');
    expect(() => activationCode('a$b', 'c')).toThrow(TypeError);
  });
  it('gives sandbox profiles an uninstallable address and a TEST- matching id', () => {
    let i = 0;
    const id = sandboxMatchingId((bound) => i++ % bound);
    expect(id).toMatch(/^TEST-[A-Z0-9]{20}$/);
    expect(SANDBOX_SMDP_ADDRESS.endsWith('.invalid')).toBe(true);
  });
});

describe('pricing', () => {
  it('adds the margin and rounds up to x.99', () => {
    expect(retailPriceCents(700, 30)).toBe(999);
    expect(retailPriceCents(768, 30)).toBe(999);
    expect(retailPriceCents(769, 30)).toBe(1099);
    expect(retailPriceCents(0, 30)).toBe(99);
    expect(retailPriceCents(1000, 0)).toBe(1099);
  });
  it('never sells below cost plus margin', () => {
    for (let cost = 0; cost < 5_000; cost += 37) expect(retailPriceCents(cost, 25)).toBeGreaterThanOrEqual(cost * 1.25);
  });
  it('refuses nonsense', () => {
    expect(() => retailPriceCents(-1, 30)).toThrow(RangeError);
    expect(() => retailPriceCents(1.5, 30)).toThrow(RangeError);
    expect(() => retailPriceCents(100, -1)).toThrow(RangeError);
  });
});

describe('the sandbox catalogue', () => {
  const listed = SANDBOX_BUNDLES.filter((b) => !b.retired);

  it('has at least 25 listed bundles with unique names of the documented form', () => {
    expect(listed.length).toBeGreaterThanOrEqual(25);
    expect(new Set(SANDBOX_BUNDLES.map((b) => b.name)).size).toBe(SANDBOX_BUNDLES.length);
    for (const b of SANDBOX_BUNDLES) expect(b.name).toMatch(/^esim_(\d+GB|UL)_\d+D_[A-Z]+(_[A-Z]+)?$/);
    expect(SANDBOX_BUNDLES.map((b) => b.name)).toContain('esim_5GB_30D_EU');
  });

  it('covers single-country, every region, global and unlimited bundles', () => {
    expect(listed.some((b) => b.countries.length === 1)).toBe(true);
    for (const region of REGIONS) {
      expect(
        listed.some((b) => b.region === region && b.countries.length > 1),
        region,
      ).toBe(true);
    }
    expect(listed.some((b) => b.unlimited && b.data_mb === null)).toBe(true);
  });

  it('stays within 1 to 50 GB, 1 to 90 days, with plausible prices', () => {
    for (const b of SANDBOX_BUNDLES) {
      if (!b.unlimited) expect(b.data_mb).toBeGreaterThanOrEqual(1_000);
      if (!b.unlimited) expect(b.data_mb).toBeLessThanOrEqual(50_000);
      expect(b.duration_days).toBeGreaterThanOrEqual(1);
      expect(b.duration_days).toBeLessThanOrEqual(90);
      expect(b.price_cents).toBeGreaterThan(0);
      expect(b.price_cents).toBeLessThan(50_000);
      for (const c of b.countries) expect(c).toMatch(/^[A-Z]{2}$/);
    }
    const durations = new Set(listed.map((b) => b.duration_days));
    expect(durations.size).toBeGreaterThanOrEqual(4);
  });

  it('has a retired bundle and a sandbox-only one', () => {
    expect(SANDBOX_BUNDLES.some((b) => b.retired)).toBe(true);
    for (const name of SANDBOX_ONLY_BUNDLES) expect(listed.map((b) => b.name)).toContain(name);
  });

  it('puts each single-country bundle under its country’s region', () => {
    expect(regionOfCountry('FR')).toBe('europe');
    expect(regionOfCountry('JP')).toBe('asia');
    expect(countriesOf('global')).toContain('US');
    expect(countriesOf('global')).toContain('JP');
  });
});

describe('matchesFilter', () => {
  const eu = SANDBOX_BUNDLES.find((b) => b.name === 'esim_5GB_30D_EU');
  if (!eu) throw new Error('seed lacks esim_5GB_30D_EU');
  it('keeps bundles covering every listed country', () => {
    expect(matchesFilter(eu, { countries: ['GB', 'FR'] })).toBe(true);
    expect(matchesFilter(eu, { countries: ['GB', 'US'] })).toBe(false);
    expect(matchesFilter(eu, { region: 'europe' })).toBe(true);
    expect(matchesFilter(eu, { region: 'asia' })).toBe(false);
    expect(matchesFilter({ ...eu, retired: true }, {})).toBe(false);
  });
});
