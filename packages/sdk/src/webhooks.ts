import { typedEventSchema, type TypedEvent } from '@connectivity/contracts';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

export { WebhookVerificationError };

/**
 * Verifies a delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with the endpoint's `whsec_...` secret and returns the typed event.
 * Pass the raw body exactly as received: re-serialised JSON does not verify. Throws
 * `WebhookVerificationError` on a bad signature or a timestamp outside the tolerance.
 */
export function verifyWebhook(rawBody: string | Buffer, headers: Record<string, string | string[] | undefined>, secret: string): TypedEvent {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const payload = new Webhook(secret).verify(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'), flat);
  return typedEventSchema.parse(payload);
}
