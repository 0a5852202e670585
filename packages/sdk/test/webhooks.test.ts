import { Webhook, WebhookVerificationError as StandardWebhookVerificationError } from 'standardwebhooks';
import { describe, expect, expectTypeOf, test } from 'vitest';
import { parseEvent, verifyWebhook, WebhookPayloadError, WebhookVerificationError, type UnknownEventType, type WebhookEvent } from '../src/index.ts';
import { esimFixture } from './support/fixtures.ts';

const secret = `whsec_${Buffer.from('a-test-secret-of-32-bytes-long!!').toString('base64')}`;

const event = {
  object: 'event',
  id: 'evt_01jd8x7k2m9q4r5s6t7v8w9xyz',
  type: 'api_key.revoked',
  time: '2026-11-22T10:15:30.123Z',
  created_at: 1795342530,
  environment: 'test',
  data: {
    object: {
      object: 'api_key',
      id: 'key_01jd8x7k2m9q4r5s6t7v8w9xyz',
      environment: 'test',
      prefix: 'sk_test_Ab3x',
      last4: 'wxyz',
      status: 'revoked',
      scopes: ['esim:read'],
      created_at: 1795342000,
      last_used_at: null,
      revoked_at: 1795342530,
    },
  },
};

function signed(body: string, at = new Date()) {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(secret).sign(event.id, at, body),
  };
}

describe('verifyWebhook', () => {
  test('returns the typed event of a correctly signed delivery', () => {
    const body = JSON.stringify(event);
    const verified = verifyWebhook(body, signed(body), secret);
    expect(verified.type).toBe('api_key.revoked');
    expect(verified).toEqual(event);
  });

  test('accepts header names in any case and a Buffer body', () => {
    const body = JSON.stringify(event);
    const headers = Object.fromEntries(Object.entries(signed(body)).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyWebhook(Buffer.from(body), headers, secret).id).toBe(event.id);
  });

  test('refuses a tampered body, a wrong secret and a stale timestamp', () => {
    const body = JSON.stringify(event);
    const headers = signed(body);
    expect(() => verifyWebhook(body.replace('revoked', 'issued'), headers, secret)).toThrow(WebhookVerificationError);
    const other = `whsec_${Buffer.from('another-secret-of-32-bytes-long!').toString('base64')}`;
    expect(() => verifyWebhook(body, headers, other)).toThrow(WebhookVerificationError);
    const stale = signed(body, new Date(Date.now() - 60 * 60 * 1000));
    expect(() => verifyWebhook(body, stale, secret)).toThrow(WebhookVerificationError);
  });

  test("narrows `data` by `type`, as the contract's event catalogue types it", () => {
    const usage = {
      ...event,
      type: 'esim.usage.threshold',
      data: { object: esimFixture(1), threshold_percent: 80, data_used_bytes: 4_000_000_000, data_limit_bytes: 5_000_000_000 },
    };
    const body = JSON.stringify(usage);
    const verified = verifyWebhook(body, signed(body), secret);
    const seen: unknown[] = [];
    switch (verified.type) {
      case 'esim.usage.threshold':
        expectTypeOf(verified.data.threshold_percent).toEqualTypeOf<50 | 80 | 100>();
        seen.push(verified.data.threshold_percent, verified.data.object.iccid);
        break;
      case 'api_key.revoked':
        expectTypeOf(verified.data.object.status).toEqualTypeOf<'active' | 'revoked'>();
        break;
      case 'esim.released':
        expectTypeOf(verified.data.previous_state).toEqualTypeOf<'released' | 'installed' | 'active' | 'suspended' | 'expired' | null>();
        break;
      default:
        // The types not named above, and any type newer than this SDK (unknown-events.test.ts).
        expectTypeOf(verified.type).toEqualTypeOf<
          | 'esim.installed'
          | 'esim.activated'
          | 'esim.suspended'
          | 'esim.expired'
          | 'api_key.issued'
          | 'api_key.first_used'
          | 'refund.created'
          | 'refund.succeeded'
          | 'refund.failed'
          | 'balance.low'
          | 'esim.topped_up'
          | 'esim.expiring'
          | UnknownEventType
        >();
    }
    expect(seen).toEqual([80, esimFixture(1).iccid]);
    expectTypeOf(verified).toEqualTypeOf<WebhookEvent>();
  });

  test("takes the fetch API's Headers and a Uint8Array body (Next.js, Hono, Workers)", () => {
    const body = JSON.stringify(event);
    const headers = new Headers(signed(body));
    expect(verifyWebhook(new TextEncoder().encode(body), headers, secret).id).toBe(event.id);
    expect(verifyWebhook(body, headers, secret).id).toBe(event.id);
  });

  test('takes headers of another fetch implementation (a framework’s own Headers, another realm’s)', () => {
    const body = JSON.stringify(event);
    const entries = Object.entries(signed(body));
    // Not this runtime's Headers class: only its shape, as undici's npm package or a polyfill would have.
    const foreign = {
      get: (name: string) => entries.find(([key]) => key === name.toLowerCase())?.[1] ?? null,
      forEach: (callback: (value: string, name: string) => void) => entries.forEach(([name, value]) => callback(value, name.toUpperCase())),
    };
    expect(foreign instanceof Headers).toBe(false);
    expect(verifyWebhook(body, foreign as unknown as Headers, secret).id).toBe(event.id);
  });

  test('a bad signature is the SDK’s WebhookVerificationError, with the standardwebhooks error as its cause', () => {
    const body = JSON.stringify(event);
    const error = (() => {
      try {
        return verifyWebhook(`${body} `, signed(body), secret);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toMatchObject({ name: 'WebhookVerificationError', message: 'No matching signature found' });
    expect((error as Error).cause).toBeInstanceOf(StandardWebhookVerificationError);
  });

  test('missing signature headers are a WebhookVerificationError', () => {
    const body = JSON.stringify(event);
    expect(() => verifyWebhook(body, {}, secret)).toThrow(WebhookVerificationError);
    const { 'webhook-signature': _dropped, ...withoutSignature } = signed(body);
    expect(() => verifyWebhook(body, withoutSignature, secret)).toThrow(WebhookVerificationError);
  });

  test('a correctly signed payload that is not an event of the contract is a WebhookPayloadError, not a signature error', () => {
    // A type this SDK knows with `data` that is not that type's (an unknown type is an event: unknown-events.test.ts).
    const malformed = JSON.stringify({ ...event, data: { object: { ...event.data.object, status: 'teleported' } } });
    const error = (() => {
      try {
        return verifyWebhook(malformed, signed(malformed), secret);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(WebhookPayloadError);
    expect(error).not.toBeInstanceOf(WebhookVerificationError);
    expect((error as WebhookPayloadError).payload).toMatchObject({ type: 'api_key.revoked', data: { object: { status: 'teleported' } } });

    const notJson = 'not json';
    expect(() => verifyWebhook(notJson, signed(notJson), secret)).toThrow(WebhookPayloadError);
    for (const notAnEvent of ['[]', '{"hello":"world"}', JSON.stringify({ ...event, type: 42 })]) {
      expect(() => verifyWebhook(notAnEvent, signed(notAnEvent), secret), notAnEvent).toThrow(WebhookPayloadError);
    }
  });

  test('parseEvent types an event of the log the same way', () => {
    expect(parseEvent(event).type).toBe('api_key.revoked');
    expect(() => parseEvent({ ...event, data: {} })).toThrow(WebhookPayloadError);
  });
});
