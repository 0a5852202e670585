import type { AppRoute } from '@ts-rest/core';
import type { ContentObject, HeaderObject, OperationObject, ParameterObject, ReferenceObject, RequestBodyObject, ResponseObject } from 'openapi3-ts';
import { canonicalHeaderName } from '../headers.ts';
import { ERROR_CATALOGUE } from '../errors/catalogue.ts';
import { routeMetadata } from '../routes/metadata.ts';
import type { RouteMetadata } from '../routes/metadata.ts';
import { HEADER_PARAMETER_REFS, RESPONSE_HEADER_NAMES, TAGS } from './components.ts';
import type { RouteGroup } from '../routes/contract.ts';

type HeaderComponent = keyof typeof RESPONSE_HEADER_NAMES;

function headerRefs(names: HeaderComponent[]): Record<string, ReferenceObject> {
  return Object.fromEntries(names.map((name): [string, ReferenceObject] => [RESPONSE_HEADER_NAMES[name], { $ref: `#/components/headers/${name}` }]));
}

/** Which documented headers a response carries: rate-limit ones once the key is known, replay marks on mutations. */
function responseHeaders(metadata: RouteMetadata, status: number): Record<string, HeaderObject | ReferenceObject> {
  if (!metadata.auth) return headerRefs(['RequestId']);
  const names: HeaderComponent[] = ['RequestId', 'ServiceVersion'];
  if (status !== 401) names.push('RateLimitPolicy', 'RateLimit', 'RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset');
  if (status === 429) names.push('RetryAfter');
  if (metadata.idempotent && status !== 401 && status !== 429) names.push('IdempotentReplayed');
  return headerRefs(names);
}

function errorDescription(metadata: RouteMetadata, status: number): string {
  const codes = metadata.errors.filter((code) => ERROR_CATALOGUE[code].status === status).map((code) => `\`${code}\``);
  if (codes.length === 0) return 'An error; the body names its `code`.';
  return `Error with code ${codes.length === 1 ? codes[0] : `${codes.slice(0, -1).join(', ')} or ${codes.at(-1)}`}.`;
}

const SUCCESS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created' };

// ts-rest describes an undescribed response by its bare status; name the returned component instead.
function successDescription(response: ResponseObject, status: number): string {
  if (response.description !== String(status)) return response.description;
  const schema = (response.content as Record<string, { schema?: ReferenceObject }> | undefined)?.['application/json']?.schema;
  const component = schema?.$ref.split('/').at(-1);
  const text = SUCCESS_TEXT[status] ?? 'Success';
  return component === undefined ? `${text}.` : `${text}: \`${component}\`.`;
}

function headerParameter(parameter: ParameterObject | ReferenceObject): ParameterObject | ReferenceObject {
  if ('$ref' in parameter || parameter.in !== 'header') return parameter;
  const component = HEADER_PARAMETER_REFS[parameter.name];
  // Others keep their own definition under their canonical name (`Last-Event-ID`).
  return component === undefined ? { ...parameter, name: canonicalHeaderName(parameter.name) } : { $ref: `#/components/parameters/${component}` };
}

// An object in the query is sent as `name[key]=value` pairs (the `metadata` filter); ts-rest marks only zod objects so.
function queryParameter(parameter: ParameterObject | ReferenceObject): ParameterObject | ReferenceObject {
  if ('$ref' in parameter || parameter.in !== 'query' || parameter.schema === undefined || '$ref' in parameter.schema) return parameter;
  if (parameter.schema.type !== 'object') return parameter;
  return { ...parameter, style: 'deepObject', explode: true };
}

// A success answer that is not JSON: ts-rest documents no content for it, so each media type is named here.
function mediaContent(produces: readonly string[]): ContentObject {
  return Object.fromEntries(
    produces.map((type) => [type, { schema: type.endsWith('+xml') || type.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' } }]),
  );
}

// ts-rest labels every body "Body" and never marks it required; the body schema knows whether it may be absent.
function requestBody({ description: _label, ...body }: RequestBodyObject, route: AppRoute): RequestBodyObject {
  const schema = 'body' in route ? (route.body as { isOptional?: () => boolean } | null) : null;
  return { ...body, required: !(schema?.isOptional?.() ?? false) };
}

/** Adds what ts-rest cannot know to one operation: tags, security, scopes, header refs, response docs. */
export function enrichOperation(operation: OperationObject, route: AppRoute): OperationObject {
  const metadata = routeMetadata(route);
  const scopeNote = metadata.scopes.length > 0 ? ` Requires the ${metadata.scopes.map((scope) => `\`${scope}\``).join(', ')} scope.` : '';
  const responses = Object.fromEntries(
    Object.entries(operation.responses as Record<string, ResponseObject>).map(([status, response]) => {
      const code = Number(status);
      if (code < 400 && metadata.produces !== undefined) {
        const types = metadata.produces.map((type) => `\`${type}\``);
        const description = `${SUCCESS_TEXT[code] ?? 'Success'}: ${types.join(' or ')}, as \`Accept\` asks (default ${types[0] ?? ''}).`;
        return [status, { ...response, description, content: mediaContent(metadata.produces), headers: responseHeaders(metadata, code) }];
      }
      const description = code >= 400 ? errorDescription(metadata, code) : successDescription(response, code);
      return [status, { ...response, description, headers: responseHeaders(metadata, code) }];
    }),
  );
  return {
    ...operation,
    description: `${route.description ?? ''}${scopeNote}`,
    tags: (operation.tags ?? []).map((group) => TAGS[group as RouteGroup].name),
    parameters: (operation.parameters ?? []).map(headerParameter).map(queryParameter),
    ...(operation.requestBody && { requestBody: requestBody(operation.requestBody as RequestBodyObject, route) }),
    responses,
    ...(!metadata.auth && { security: [] }),
    'x-scopes': metadata.scopes,
    'x-idempotent': metadata.idempotent,
    ...(metadata.testOnly && { 'x-test-only': true }),
  };
}
