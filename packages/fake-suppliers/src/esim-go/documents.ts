import { loadOpenApiDocument, type OpenApiDocument } from '../shared/openapi/document.ts';

/**
 * EG-2: `message.required: true` in POST /esims/{iccid}/sms is a boolean where JSON Schema needs
 * a list; it is the one construct no schema tool accepts, so the loader drops that keyword.
 */
function dropBooleanRequired(document: OpenApiDocument) {
  const sms = document.paths['/esims/{iccid}/sms']?.post as
    { requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, Record<string, unknown>> } }> } } | undefined;
  const message = sms?.requestBody?.content?.['application/json']?.schema?.properties?.message;
  if (message && typeof message.required === 'boolean') delete message.required;
}

let cached: OpenApiDocument | undefined;

/** eSIM Go's v2.4 document, read as published: Mac-Roman text (EG-1), see vendor/esim-go/SOURCE.md. */
export function esimGoDocument(): OpenApiDocument {
  cached ??= loadOpenApiDocument(new URL('../../vendor/esim-go/esim_go_schema_v2_4.yaml', import.meta.url), {
    encoding: 'macintosh',
    repairDocument: dropBooleanRequired,
  });
  return cached;
}
