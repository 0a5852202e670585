import { typedEventSchema } from '@connectivity/contracts/public';
import type { ApiEvent, EventData, EventType } from '@connectivity/contracts/public';
import { Webhook, WebhookVerificationError as StandardWebhookVerificationError } from 'standardwebhooks';

/**
 * The delivery's signature does not verify: a missing `webhook-*` header, a signature made with
 * another secret or over other bytes, or a timestamp more than five minutes away. The SDK's own
 * class (standardwebhooks' error is its `cause`): re-exporting that one put its declarations, which
 * name Node's `Buffer`, into this package's types.
 */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/**
 * A verified webhook delivery: a union discriminated by `type`, whose `data` has the type the
 * contract's event catalogue (`EVENT_CATALOGUE`) gives that event type, so `switch (event.type)`
 * narrows `event.data`. Built per type from the catalogue: the contract's own `TypedEvent` infers
 * through a generic helper that widens every `data` to the union of all of them.
 */
export type WebhookEvent = { [T in EventType]: Omit<ApiEvent, 'type' | 'data'> & { type: T; data: EventData<T> } }[EventType];
export type WebhookEventOf<T extends EventType> = Extract<WebhookEvent, { type: T }>;
/** The names this package exported before; the same types as `WebhookEvent` and `WebhookEventOf`. */
export type TypedEvent = WebhookEvent;
export type TypedEventOf<T extends EventType> = WebhookEventOf<T>;

/** Headers as Node (`req.headers`) or the fetch API (`request.headers`, in any runtime) delivers them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A body as received: the exact bytes or text, never JSON that was parsed and serialised again. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/**
 * The signature was valid, but the payload is not an event of the contract (for example an event
 * type newer than this SDK). `payload` holds it as parsed JSON.
 */
export class WebhookPayloadError extends Error {
  override name = 'WebhookPayloadError';
  readonly payload: unknown;

  constructor(message: string, options: { payload: unknown; cause: unknown }) {
    super(message, { cause: options.cause });
    this.payload = options.payload;
  }
}

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

/** Parses an event object (e.g. an item of `events.list`) into the typed union; throws on a payload that is not one. */
export function parseEvent(payload: unknown): WebhookEvent {
  const parsed = typedEventSchema.safeParse(payload);
  // The schema checks `data` against the catalogue entry of `type`, which is what WebhookEvent says.
  if (parsed.success) return parsed.data as WebhookEvent;
  const type = typeof payload === 'object' && payload !== null && 'type' in payload ? String(payload.type) : 'unknown';
  throw new WebhookPayloadError(`The event (type ${type}) does not match the API contract this SDK was built from: ${parsed.error.message}`, {
    payload,
    cause: parsed.error,
  });
}

/**
 * Verifies a delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`, `webhook-signature`)
 * with the endpoint's `whsec_...` secret and returns the typed event. Pass the raw body exactly
 * as received: JSON parsed and serialised again does not verify. Throws
 * `WebhookVerificationError` on a missing or bad signature or a timestamp more than five minutes
 * away, and `WebhookPayloadError` when a correctly signed payload is not an event of the contract.
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
