import { Webhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, test } from 'vitest';
import {
  handleEvent,
  isKnownEvent,
  parseEvent,
  verifyWebhook,
  WebhookPayloadError,
  type KnownWebhookEvent,
  type UnknownEventType,
  type UnknownWebhookEvent,
  type WebhookEvent,
  type WebhookEventOf,
} from '../src/index.ts';
import { esimFixture } from './support/fixtures.ts';

const secret = `whsec_${Buffer.from('a-test-secret-of-32-bytes-long!!').toString('base64')}`;

const envelope = {
  object: 'event',
  id: 'evt_01jd8x7k2m9q4r5s6t7v8w9xyz',
  time: '2026-11-22T10:15:30.123Z',
  created_at: 1795342530,
  environment: 'test',
};
// A type the API may add after this SDK was released, with data this SDK has no schema for.
const transfer = { ...envelope, type: 'esim.transferred', data: { object: esimFixture(1), to_device: 'dev_2' } };
const payout = { ...envelope, type: 'payout.paid', data: { amount_cents: 1_200, currency: 'USD' } };
const expired = {
  ...envelope,
  type: 'esim.expired',
  data: { object: { ...esimFixture(2), state: 'expired', expired_reason: 'cancelled' }, previous_state: 'active' },
};

function delivered(payload: unknown): WebhookEvent {
  const body = JSON.stringify(payload);
  const headers = {
    'webhook-id': envelope.id,
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': new Webhook(secret).sign(envelope.id, new Date(), body),
  };
  return verifyWebhook(body, headers, secret);
}

describe('an event type newer than this SDK', () => {
  test('verifies and parses as an UnknownWebhookEvent: the envelope and type as sent, data untouched, never a throw', () => {
    const event = delivered(transfer);
    expect(event).toEqual(transfer);
    expect(event.type).toBe('esim.transferred');
    expect(isKnownEvent(event)).toBe(false);
    expect(parseEvent(payout)).toEqual(payout);
  });

  test('its envelope is still checked: a payload that is no event is a WebhookPayloadError', () => {
    const { id: _id, ...withoutId } = payout;
    for (const notAnEvent of [withoutId, { ...payout, object: 'list' }, { ...payout, type: '' }, { ...payout, created_at: 'yesterday' }]) {
      expect(() => delivered(notAnEvent), JSON.stringify(notAnEvent)).toThrow(WebhookPayloadError);
    }
  });

  test('a switch on `type` still narrows the known types’ data, and leaves the unknown ones to `default`', () => {
    const seen: string[] = [];
    for (const event of [delivered(expired), delivered(transfer), delivered(payout)]) {
      switch (event.type) {
        case 'esim.expired':
          expectTypeOf(event.data.object.expired_reason).toEqualTypeOf<'validity_ended' | 'data_exhausted' | 'cancelled' | 'supplier_deleted' | null>();
          seen.push(`expired ${event.data.object.id} (${event.data.object.expired_reason})`);
          break;
        case 'esim.usage.threshold':
          expectTypeOf(event.data.threshold_percent).toEqualTypeOf<50 | 80 | 100>();
          break;
        default:
          // Acknowledged and ignored: what a receiver built before the type existed does with it.
          seen.push(`ignored ${String(event.type)}`);
      }
    }
    expect(seen).toEqual([`expired ${esimFixture(2).id} (cancelled)`, 'ignored esim.transferred', 'ignored payout.paid']);
  });

  test('is a member of the union the types make apparent: an exhaustive switch must name it', () => {
    const event = delivered(payout);
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    expectTypeOf<UnknownWebhookEvent>().toExtend<WebhookEvent>();
    expectTypeOf<UnknownWebhookEvent['data']>().toEqualTypeOf<unknown>();
    // @ts-expect-error a WebhookEvent may be of a type this SDK does not know
    const known: KnownWebhookEvent = event;
    expect(known.id).toBe(envelope.id);
    // The unknown type is a string at run time, typed apart from every known type's name.
    expectTypeOf<UnknownEventType>().toExtend<string>();
    expectTypeOf<'esim.expired'>().not.toExtend<UnknownEventType>();
    if (isKnownEvent(event)) expectTypeOf(event).toEqualTypeOf<KnownWebhookEvent>();
    else expectTypeOf(event).toEqualTypeOf<UnknownWebhookEvent>();
  });
});

describe('handleEvent', () => {
  test('calls the handler of the event’s type with the event typed, and ignores the rest (undefined)', () => {
    const handled: string[] = [];
    const handlers = {
      'esim.expired': (event: WebhookEventOf<'esim.expired'>) => {
        expectTypeOf(event.data.previous_state).toEqualTypeOf<'released' | 'installed' | 'active' | 'suspended' | 'expired'>();
        handled.push(event.data.object.id);
        return 'renewal offered';
      },
    };
    expect(handleEvent(delivered(expired), handlers)).toBe('renewal offered');
    expect(handleEvent(delivered(transfer), handlers)).toBeUndefined();
    expect(handleEvent(delivered({ ...expired, type: 'esim.suspended' }), handlers)).toBeUndefined();
    expect(handled).toEqual([esimFixture(2).id]);
  });

  test('types each handler’s event by its key; the result is what any handler returns, a promise to await for async ones', async () => {
    const result = handleEvent(delivered(expired), {
      'esim.usage.threshold': async (event) => {
        expectTypeOf(event).toEqualTypeOf<WebhookEventOf<'esim.usage.threshold'>>();
        return Promise.resolve(event.data.threshold_percent);
      },
      'esim.expired': async (event) => Promise.resolve(event.data.object.expired_reason ?? 'none'),
    });
    expectTypeOf(result).toEqualTypeOf<Promise<50 | 80 | 100> | Promise<string> | undefined>();
    expect(await result).toBe('cancelled');

    // Handlers may return different things (a notification sent, a promise of a renewal): no common type needed.
    const mixed = handleEvent(delivered(expired), { 'esim.expired': () => 1, 'esim.released': (event) => event.data.previous_state });
    expectTypeOf(mixed).toEqualTypeOf<number | 'released' | 'installed' | 'active' | 'suspended' | 'expired' | null | undefined>();
    expect(mixed).toBe(1);
    expectTypeOf(handleEvent(delivered(expired), {})).toEqualTypeOf<undefined>();
    // @ts-expect-error a key that is no event type (a typo) is refused
    expect(handleEvent(delivered(expired), { 'esim.expird': () => 1 })).toBeUndefined();
  });
});
