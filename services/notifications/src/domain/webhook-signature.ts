import { WEBHOOK_HEADERS } from '@connectivity/contracts';
import { Webhook } from 'standardwebhooks';

/**
 * The Standard Webhooks headers for one attempt: `webhook-id` is the event id (receivers
 * deduplicate on it), the timestamp is the time of this attempt, so every retry and replay
 * carries a fresh signature that passes the receivers' 5-minute tolerance.
 */
export function signatureHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  return {
    [WEBHOOK_HEADERS.id]: eventId,
    [WEBHOOK_HEADERS.timestamp]: String(Math.floor(at.getTime() / 1000)),
    [WEBHOOK_HEADERS.signature]: new Webhook(secret).sign(eventId, at, body),
  };
}
