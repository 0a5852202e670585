import { ApiError, EVENT_TYPES, type EventType } from '@connectivity/contracts';

/** `["*"]` subscribes to every event type; otherwise the listed types only. */
export const ALL_EVENTS = '*';

/**
 * Checks an endpoint's `enabled_events` against the event catalogue: a non-empty list of known
 * types without repeats, or exactly `["*"]`. Repeats are dropped rather than refused.
 */
export function normalizeEnabledEvents(values: readonly string[]): string[] {
  const unique = [...new Set(values)];
  if (unique.length === 0) {
    throw new ApiError('invalid_parameter', {
      param: 'enabled_events',
      message: 'enabled_events must list at least one event type, or be ["*"] for all of them.',
    });
  }
  if (unique.includes(ALL_EVENTS)) {
    if (unique.length > 1) {
      throw new ApiError('invalid_parameter', {
        param: 'enabled_events',
        message: '"*" already selects every event type: send ["*"] alone, or list the types.',
      });
    }
    return [ALL_EVENTS];
  }
  const unknown = unique.find((value) => !(EVENT_TYPES as readonly string[]).includes(value));
  if (unknown !== undefined) {
    throw new ApiError('invalid_parameter', {
      param: 'enabled_events',
      message: `"${unknown}" is not an event type; GET /v1/event_types lists them.`,
    });
  }
  return unique;
}

export function endpointWants(enabledEvents: readonly string[], type: EventType): boolean {
  return enabledEvents.includes(ALL_EVENTS) || enabledEvents.includes(type);
}
