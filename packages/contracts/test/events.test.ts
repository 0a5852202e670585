import { describe, expect, it } from 'vitest';
import { EVENT_CATALOGUE, EVENT_TYPES, eventSchema, eventTypeItems, eventTypeItemSchema, typedEventSchema } from '../src/index.ts';
import type { EventType } from '../src/index.ts';
import { apiKey, esim, eventEnvelope } from './fixtures.ts';

const SPEC_EVENT_TYPES = [
  'esim.released',
  'esim.installed',
  'esim.activated',
  'esim.suspended',
  'esim.expired',
  'esim.usage.threshold',
  'api_key.issued',
  'api_key.first_used',
  'api_key.revoked',
];

/** Added since the specification (record 0258), after its nine. */
const ADDED_EVENT_TYPES = ['refund.created', 'refund.succeeded', 'refund.failed', 'balance.low', 'esim.topped_up', 'esim.expiring'];

const refund = {
  object: 'refund',
  id: 're_01m7q5dqbb7ct2kdy8s4wa5n1f',
  esim: 'esim_01m7q5dk9b2sg4h7wzv1x3yq8n',
  order: 'ord_01m7q5dmm6ahq0ycbn8f4r2kte',
  amount_cents: 1799,
  currency: 'USD',
  status: 'pending',
  reason: 'esim_cancelled',
  failure_reason: null,
  created_at: 1_795_000_000,
  updated_at: 1_795_000_000,
};

const SAMPLE_DATA: Record<EventType, unknown> = {
  'esim.released': { object: { ...esim, state: 'released' }, previous_state: null },
  'esim.installed': { object: { ...esim, state: 'installed' }, previous_state: 'released' },
  'esim.activated': { object: esim, previous_state: 'installed' },
  'esim.suspended': { object: { ...esim, state: 'suspended' }, previous_state: 'active' },
  'esim.expired': { object: { ...esim, state: 'expired' }, previous_state: 'active' },
  'esim.usage.threshold': {
    object: esim,
    threshold_percent: 50,
    data_used_bytes: 2_500_000_000,
    data_limit_bytes: 5_000_000_000,
  },
  'api_key.issued': { object: apiKey },
  'api_key.first_used': { object: { ...apiKey, last_used_at: apiKey.created_at + 5 } },
  'api_key.revoked': { object: { ...apiKey, status: 'revoked', revoked_at: apiKey.created_at + 99 } },
  'refund.created': { object: refund },
  'refund.succeeded': { object: { ...refund, status: 'succeeded' } },
  'refund.failed': { object: { ...refund, status: 'failed', failure_reason: 'supplier_rejected' } },
  'balance.low': {
    object: {
      object: 'balance',
      environment: 'live',
      available_cents: 900,
      pending_cents: 0,
      currency: 'USD',
      low_balance_threshold_cents: 1000,
      simulated: false,
    },
    threshold_cents: 1000,
  },
  'esim.topped_up': {
    object: { ...esim, data_limit_bytes: 10_000_000_000 },
    previous_state: 'active',
    topup: {
      object: 'topup',
      id: 'top_01m7q5dwq4h8c3nx6y2bt7r5ke',
      esim: esim.id,
      bundle: 'esim_5GB_30D_EU',
      price_cents: 1599,
      currency: 'USD',
      status: 'succeeded',
      simulated: true,
      created_at: 1_795_000_000,
    },
  },
  'esim.expiring': { object: esim, days_left: 1 },
};

describe('event catalogue', () => {
  it('holds the 9 event types of the specification, in its order, then the ones added since', () => {
    expect(EVENT_TYPES).toEqual([...SPEC_EVENT_TYPES, ...ADDED_EVENT_TYPES]);
    expect(Object.keys(EVENT_CATALOGUE)).toEqual([...SPEC_EVENT_TYPES, ...ADDED_EVENT_TYPES]);
  });

  it.each(EVENT_TYPES)('%s: its data schema accepts a realistic sample, inside a valid envelope', (type) => {
    const data = SAMPLE_DATA[type];
    expect(EVENT_CATALOGUE[type].data.parse(data)).toEqual(data);
    const event = { ...eventEnvelope, type, data };
    expect(eventSchema.parse(event)).toEqual(event);
    expect(typedEventSchema.parse(event)).toEqual(event);
  });

  it('previous_state is null only for esim.released', () => {
    expect(EVENT_CATALOGUE['esim.activated'].data.safeParse({ object: esim, previous_state: null }).success).toBe(false);
  });

  it('thresholds are 50, 80 and 100 percent only', () => {
    const sample = SAMPLE_DATA['esim.usage.threshold'] as object;
    for (const threshold_percent of [50, 80, 100]) {
      expect(EVENT_CATALOGUE['esim.usage.threshold'].data.safeParse({ ...sample, threshold_percent }).success).toBe(true);
    }
    expect(EVENT_CATALOGUE['esim.usage.threshold'].data.safeParse({ ...sample, threshold_percent: 90 }).success).toBe(false);
  });

  it('esim.expiring marks 3 and 1 days before expires_at only', () => {
    for (const days_left of [3, 1]) expect(EVENT_CATALOGUE['esim.expiring'].data.safeParse({ object: esim, days_left }).success).toBe(true);
    for (const days_left of [2, 7, 0]) expect(EVENT_CATALOGUE['esim.expiring'].data.safeParse({ object: esim, days_left }).success).toBe(false);
  });

  it('rejects a data shape that does not belong to the type', () => {
    const event = { ...eventEnvelope, type: 'api_key.issued', data: SAMPLE_DATA['esim.activated'] };
    expect(typedEventSchema.safeParse(event).success).toBe(false);
  });

  it('reads an eSIM event recorded before eSIMs had metadata and apple_install_url, filling them in', () => {
    const { metadata: _metadata, apple_install_url: _url, ...before } = esim;
    const parsed = typedEventSchema.parse({ ...eventEnvelope, type: 'esim.activated', data: { object: before, previous_state: 'installed' } });
    expect(parsed.data.object).toEqual({ ...esim, metadata: {} });
    expect(parsed.data.object).toMatchObject({ apple_install_url: esim.apple_install_url });
    const noCode = { ...before, activation_code: null, smdp_address: null, matching_id: null };
    const released = EVENT_CATALOGUE['esim.released'].data.parse({ object: noCode, previous_state: null }) as { object: { apple_install_url: unknown } };
    expect(released.object.apple_install_url).toBeNull();
    // What the event says is kept as it is.
    expect(EVENT_CATALOGUE['esim.installed'].data.parse({ object: esim, previous_state: 'released' })).toEqual({ object: esim, previous_state: 'released' });
  });

  it('reads an eSIM event recorded before eSIMs had test_clock with null, and keeps a clock id', () => {
    const { test_clock: _clock, ...before } = esim;
    const parsed = typedEventSchema.parse({ ...eventEnvelope, type: 'esim.expired', data: { object: before, previous_state: 'active' } });
    expect(parsed.data.object).toEqual({ ...esim, test_clock: null });
    const onClock = { ...esim, test_clock: 'clock_01jd8x7k2m9q4r5s6t7v8w9xyz' };
    expect(EVENT_CATALOGUE['esim.expired'].data.parse({ object: onClock, previous_state: 'active' })).toEqual({ object: onClock, previous_state: 'active' });
    expect(
      EVENT_CATALOGUE['esim.expired'].data.safeParse({ object: { ...esim, test_clock: 'we_01jd8x7k2m9q4r5s6t7v8w9xyz' }, previous_state: 'active' }).success,
    ).toBe(false);
  });

  it('the envelope time is RFC 3339 UTC with milliseconds', () => {
    const event = { ...eventEnvelope, type: 'api_key.issued', data: { object: apiKey } };
    expect(eventSchema.safeParse({ ...event, time: '2026-11-22T10:15:30Z' }).success).toBe(false);
    expect(eventSchema.safeParse({ ...event, time: '2026-11-22T10:15:30.123+01:00' }).success).toBe(false);
  });

  it('serves event_type items with a plain JSON Schema of data', () => {
    const items = eventTypeItems();
    expect(items.map((item) => item.type)).toEqual([...SPEC_EVENT_TYPES, ...ADDED_EVENT_TYPES]);
    for (const item of items) {
      expect(eventTypeItemSchema.parse(item)).toEqual(item);
      expect(JSON.stringify(item.data_schema)).not.toContain('nullable');
    }
    const released = items[0]?.data_schema as { properties: { previous_state: { type: unknown; enum: unknown[] } } };
    expect(released.properties.previous_state.type).toEqual(['string', 'null']);
    expect(released.properties.previous_state.enum).toContain(null);
  });
});
