import { loadOpenApiDocument, type OpenApiDocument } from '../shared/openapi/document.ts';

/** Airalo's per-section documents kept in vendor/airalo (see SOURCE.md there). */
export const AIRALO_DOCUMENT_FILES = [
  'airalo-rest-api-endpoints-authenticate-api-openapi.yml',
  'airalo-rest-api-endpoints-browse-packages-api-openapi.excerpt.yml',
  'airalo-rest-api-endpoints-place-order-api-openapi.yml',
  'airalo-rest-api-endpoints-manage-orders-api-openapi.yml',
  'airalo-rest-api-endpoints-manage-esims-api-openapi.yml',
  'airalo-rest-api-endpoints-install-esim-api-openapi.yml',
  'airalo-rest-api-endpoints-monitor-usage-api-openapi.yml',
  'airalo-rest-api-endpoints-check-balance-api-openapi.yml',
  'airalo-rest-api-endpoints-request-refund-api-openapi.yml',
  'airalo-rest-api-endpoints-top-up-esim-api-openapi.yml',
  'airalo-rest-api-endpoints-notifications-notification-async-orders-api-openapi.yml',
  'airalo-rest-api-endpoints-notifications-notification-low-data-api-openapi.yml',
] as const;

/**
 * AIR-1: some example values are plain YAML scalars holding HTML with ": " inside, which no YAML
 * parser accepts; quoting exactly those scalars changes no schema.
 */
export const quoteInstallationHtml = (text: string) =>
  text.replace(/^(\s+(?:manual_installation|qrcode_installation): )(<.*)$/gm, (_, key: string, html: string) => `${key}${JSON.stringify(html)}`);

let cached: OpenApiDocument[] | undefined;

export function airaloDocuments(): OpenApiDocument[] {
  cached ??= AIRALO_DOCUMENT_FILES.map((file) =>
    loadOpenApiDocument(new URL(`../../vendor/airalo/${file}`, import.meta.url), { repairText: quoteInstallationHtml }),
  );
  return cached;
}
