import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../src/index.ts';

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
});
