import { Webhook, WebhookVerificationError as StandardWebhookVerificationError } from 'standardwebhooks';
import { parseEvent, WebhookPayloadError, type WebhookEvent } from './events.ts';

/**
 * The delivery's signature does not verify: a missing `webhook-*` header, a signature made with
 * another secret or over other bytes, or a timestamp more than five minutes away. The SDK's own
 * class (standardwebhooks' error is its `cause`): re-exporting that one put its declarations, which
 * name Node's `Buffer`, into this package's types.
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** Headers as Node (`req.headers`) or the fetch API (`request.headers`, in any runtime) delivers them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A body as received: the exact bytes or text, never JSON that was parsed and serialised again. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** A fetch `Headers`, recognised by shape: a framework may hand over its own implementation, or another realm's. */
function isFetchHeaders(headers: WebhookHeaders): headers is Headers {
  return typeof headers.forEach === 'function' && typeof headers.get === 'function';
}

function flatHeaders(headers: WebhookHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  if (isFetchHeaders(headers)) {
    headers.forEach((value, name) => (flat[name.toLowerCase()] = value));
    return flat;
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return flat;
}

function text(body: RawBody): string {
  if (typeof body === 'string') return body;
  return new TextDecoder('utf-8', { fatal: false }).decode(body);
}

/**
 * Verifies a delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`)
 * with the endpoint's `whsec_...` secret and returns the event. Pass the raw body exactly as
 * received: JSON parsed and serialised again does not verify. Throws `WebhookVerificationError` on a
 * missing or bad signature or a timestamp more than five minutes away, and `WebhookPayloadError`
 * when a correctly signed payload is not an event, or is one of a known type whose `data` does not
 * match the contract. An event of a type newer than this SDK is returned as an `UnknownWebhookEvent`.
 *
 * Synchronous, and the same on Node, Bun, Deno, Workers and browsers: the HMAC is standardwebhooks'
 * own JavaScript, where Web Crypto would have made every caller await.
 */
export function verifyWebhook(rawBody: RawBody, headers: WebhookHeaders, secret: string): WebhookEvent {
  const body = text(rawBody);
  try {
    new Webhook(secret).verify(body, flatHeaders(headers), { jsonParse: false });
  } catch (error) {
    if (error instanceof StandardWebhookVerificationError) throw new WebhookVerificationError(error.message, { cause: error });
    throw error;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch (error) {
    throw new WebhookPayloadError('The signed payload is not JSON.', { payload: body, cause: error });
  }
  return parseEvent(payload);
}
