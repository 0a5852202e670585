import { eventEnvelopeShape, isEventType, typedEventSchema } from '@connectivity/contracts/public';
import type { ApiEvent, EventData, EventType } from '@connectivity/contracts/public';
import { z } from 'zod';

/** What every event has, whatever its type. */
export type EventEnvelope = Omit<ApiEvent, 'type' | 'data'>;

/**
 * An event of a type this SDK knows: a union discriminated by `type`, whose `data` has the type the
 * contract's event catalogue (`EVENT_CATALOGUE`) gives that event type, so `switch (event.type)`
 * narrows `event.data`. Built per type from the catalogue: the contract's own `TypedEvent` infers
 * through a generic helper that widens every `data` to the union of all of them.
 */
export type KnownWebhookEvent = { [T in EventType]: EventEnvelope & { type: T; data: EventData<T> } }[EventType];

/**
 * The `type` of an event newer than this SDK. At run time it is the type's name as the API sent it,
 * a plain string such as `'payout.paid'` (nothing is appended to it). It is typed as a pattern
 * that no known type's name matches because a member typed `string` would stop `event.type ===
 * 'esim.expired'` from narrowing `event.data`: TypeScript keeps every member whose `type` could
 * equal the literal. Use `String(event.type)` to compare it with a name this SDK does not know yet,
 * or upgrade the SDK to get that type's `data` typed.
 */
export type UnknownEventType = `${string} (an event type newer than this SDK)`;

/**
 * An event of a type this SDK does not know (the API added it after this release). Its envelope is
 * checked as any event's; its `data` is not, since this SDK has no schema for it.
 */
export type UnknownWebhookEvent = EventEnvelope & { type: UnknownEventType; data: unknown };

/**
 * An event as a webhook delivery or the event log carries it: one of the known types, or one this
 * SDK does not know. Acknowledge and ignore what you do not handle (`default:` of a switch, or
 * `handleEvent`), so a new event type of the API never breaks your receiver.
 */
export type WebhookEvent = KnownWebhookEvent | UnknownWebhookEvent;
export type WebhookEventOf<T extends EventType> = Extract<KnownWebhookEvent, { type: T }>;
/** The names this package exported before; the same types as `WebhookEvent` and `WebhookEventOf`. */
export type TypedEvent = WebhookEvent;
export type TypedEventOf<T extends EventType> = WebhookEventOf<T>;

/**
 * The payload is not an event: not JSON, not an event envelope, or an event of a type this SDK
 * knows whose `data` does not match the contract. `payload` holds what was received.
 */
export class WebhookPayloadError extends Error {
  override name = 'WebhookPayloadError';
  readonly payload: unknown;

  constructor(message: string, options: { payload: unknown; cause: unknown }) {
    super(message, { cause: options.cause });
    this.payload = options.payload;
  }
}

// The envelope alone, for types the catalogue does not have: the same checks as every event's envelope.
const unknownEventSchema = z.object({ ...eventEnvelopeShape, type: z.string().min(1) });

/**
 * Parses an event object (a webhook's payload, or an item of `events.list`) into `WebhookEvent`.
 * A type this SDK does not know gives an `UnknownWebhookEvent`; a payload that is not an event, or
 * a known type whose `data` does not match the contract, throws `WebhookPayloadError`.
 */
export function parseEvent(payload: unknown): WebhookEvent {
  const type = typeof payload === 'object' && payload !== null && 'type' in payload ? payload.type : undefined;
  const known = typeof type !== 'string' || isEventType(type);
  const parsed = known ? typedEventSchema.safeParse(payload) : unknownEventSchema.safeParse(payload);
  // The typed schema checks `data` against the catalogue entry of `type`, which is what KnownWebhookEvent says.
  if (parsed.success) return parsed.data as WebhookEvent;
  const described = typeof type === 'string' ? `The event (type ${type}) does not match` : 'The payload is no event of';
  throw new WebhookPayloadError(`${described} the API contract this SDK was built from: ${parsed.error.message}`, {
    payload,
    cause: parsed.error,
  });
}

/** Whether the event is of a type this SDK knows; narrows it to `KnownWebhookEvent`. */
export function isKnownEvent(event: WebhookEvent): event is KnownWebhookEvent {
  return isEventType(event.type);
}

/** A handler per event type, each given the event with its `data` typed; every one is optional. */
export type WebhookEventHandlers = { [T in EventType]?: (event: WebhookEventOf<T>) => unknown };
/** What `handleEvent` returns with these handlers: what any of them returns. */
export type WebhookEventHandlersResult<H> = { [T in keyof H]: H[T] extends (event: never) => infer R ? R : never }[keyof H];

/**
 * Calls the handler of the event's type and returns what it returns; an event with no handler
 * (a type you do not handle, or one newer than this SDK) returns `undefined` and is thereby
 * ignored. With async handlers, `await` the result. A key that is no event type is a compile error.
 *
 * ```ts
 * await handleEvent(event, {
 *   'esim.usage.threshold': (e) => notify(e.data.object.iccid, e.data.threshold_percent),
 *   'esim.expired': (e) => offerRenewal(e.data.object.id),
 * });
 * ```
 */
export function handleEvent<H extends WebhookEventHandlers>(
  event: WebhookEvent,
  handlers: H & { [K in Exclude<keyof H, EventType>]: never },
): WebhookEventHandlersResult<H> | undefined {
  if (!isKnownEvent(event)) return undefined;
  // The handler is looked up by the same `type` the event was parsed with, so its parameter type holds.
  const handler = (handlers as WebhookEventHandlers)[event.type] as ((event: KnownWebhookEvent) => WebhookEventHandlersResult<H>) | undefined;
  return handler?.(event);
}
