import { jsonSchemaOf } from '../json-schema.ts';
import type { EventTypeItem } from '../schemas/event-type.ts';
import { EVENT_CATALOGUE } from './catalogue.ts';
import { EVENT_TYPES } from './types.ts';

let items: EventTypeItem[] | undefined;

/** The items of GET /v1/event_types, in catalogue order (computed once). */
export function eventTypeItems(): EventTypeItem[] {
  items ??= EVENT_TYPES.map((type) => ({
    object: 'event_type',
    type,
    description: EVENT_CATALOGUE[type].description,
    data_schema: jsonSchemaOf(EVENT_CATALOGUE[type].data),
  }));
  return [...items];
}
