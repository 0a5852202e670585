import { errorCodeItems } from '../errors/items.ts';
import { eventTypeItems } from '../events/items.ts';

const GENERATED = '<!-- Generated from packages/contracts by `pnpm --filter @connectivity/contracts run docs`; do not edit. -->';

/** Field names of an event's `data`, from its JSON Schema, for the prose catalogue. */
function dataFields(schema: Record<string, unknown>): string {
  const properties = schema.properties as Record<string, unknown> | undefined;
  return properties
    ? Object.keys(properties)
        .map((name) => `\`${name}\``)
        .join(', ')
    : '';
}

/** docs/event-catalogue.md: the event types, what emits each and the shape of `data`. */
export function eventCatalogueMarkdown(): string {
  const rows = eventTypeItems().map((item) => `| \`${item.type}\` | ${item.description} | ${dataFields(item.data_schema)} |`);
  return [
    GENERATED,
    '# Event catalogue',
    '',
    'Every event has the envelope `{ object: "event", id, type, time, created_at, data, environment }`.',
    'Deliveries are signed per Standard Webhooks (`webhook-id` = the event id). The full JSON Schema of',
    'each `data` is served by `GET /v1/event_types`; `GET /v1/openapi.json` gives each type its payload in `webhooks`.',
    '',
    '| Type | When | `data` fields |',
    '|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** docs/error-catalogue.md: every code of the catalogue with type, status and meaning. */
export function errorCatalogueMarkdown(): string {
  const rows = errorCodeItems().map((item) => `| \`${item.code}\` | ${item.type} | ${item.status} | ${item.description} |`);
  return [
    GENERATED,
    '# Error catalogue',
    '',
    'Every error response is `{ error: { type, code, message, param?, link, detail? } }`; `link` is',
    '`<base_url>/v1/errors/<code>`, which answers with the row below.',
    '',
    '| Code | Type | Status | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

export const CATALOGUE_DOCS = {
  'event-catalogue.md': eventCatalogueMarkdown,
  'error-catalogue.md': errorCatalogueMarkdown,
} as const;
