import { EVENT_TYPES } from './types.ts';

/**
 * The bus subjects of the integrator's events, `events.<environment>.<type>`: each family of the
 * catalogue (`esim`, `refund`, …) in every environment. A consumer of events filters with these,
 * not `events.>`: the stream also carries the supplier reports catalogue hands to inventory
 * (record 0262), which are no events.
 */
export const EVENT_SUBJECT_FILTERS: readonly string[] = [...new Set(EVENT_TYPES.map((type) => type.split('.')[0]))].map((family) => `events.*.${family}.>`);
