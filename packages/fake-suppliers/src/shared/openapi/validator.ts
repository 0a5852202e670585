import { fromSchema } from '@openapi-contrib/openapi-schema-to-json-schema';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { OpenApiDocument, OpenApiMediaType, OpenApiOperation, OpenApiParameter } from './document.ts';

export type JsonSchema = Record<string, unknown>;

/**
 * One place where we read a vendor's document other than literally, because the document is
 * wrong there (the id names the note in the vendor's SOURCE.md). Deviations are per operation
 * and per body, never global.
 */
export interface Deviation {
  id: string;
  /** What the document gets wrong, in a phrase. */
  why: string;
  method: string;
  /** The operation's path as the document writes it. */
  path: string;
  target: 'request' | 'response';
  /** Responses only: the status whose declared bodies this deviation edits (all if absent). */
  status?: number;
  /** Requests only: the parameter whose schema `schema` edits (the body's when absent). */
  parameter?: string;
  /** An edit of the declared body (or parameter) schema. */
  schema?: (schema: JsonSchema) => JsonSchema;
  /** A content type to read as one the document declares (`to`), or not to check at all (`to: null`). */
  mediaType?: { from: string; to: string | null };
  /** Responses only: a differently keyed response that documents this status (Apidog's "x-422:… (401)"). */
  responseKey?: string;
  /** The body as the declared schema should see it (e.g. JSON read as the form fields it carries). */
  body?: (body: unknown) => unknown;
}

export interface RequestToCheck {
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The media type of the body, without parameters; undefined when no body was sent. */
  contentType?: string;
  body?: unknown;
}

export interface ResponseToCheck {
  method: string;
  path: string;
  status: number;
  contentType?: string;
  /** Parsed JSON, a string for other content types, undefined for an empty body. */
  body?: unknown;
}

interface Route {
  method: string;
  template: string;
  pattern: RegExp;
  names: string[];
  operation: OpenApiOperation;
  parameters: OpenApiParameter[];
}

// OpenAPI 3: header parameters with these names "SHALL be ignored" (the protocol carries them).
const IGNORED_HEADER_PARAMETERS = new Set(['accept', 'content-type', 'authorization']);
// Numeric formats the documents use that JSON Schema has no checker for; they constrain nothing here.
const OPENAPI_NUMERIC_FORMATS = ['float', 'double', 'int32', 'int64'];

const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

/** Checks requests and responses against a vendor's OpenAPI documents (3.0 or 3.1 schemas). */
export class OpenApiValidator {
  private readonly routes: Route[] = [];
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly documents: OpenApiDocument[];
  private readonly options: { pathPrefix?: string; deviations?: Deviation[] };

  constructor(documents: OpenApiDocument[], options: { pathPrefix?: string; deviations?: Deviation[] } = {}) {
    this.documents = documents;
    this.options = options;
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(this.ajv);
    for (const format of OPENAPI_NUMERIC_FORMATS) this.ajv.addFormat(format, true);
    for (const document of documents) this.addRoutes(document);
    // Literal segments win over parameters, as in every router the vendors run.
    this.routes.sort((a, b) => a.names.length - b.names.length);
  }

  /** Every operation the documents declare, as "METHOD /path". */
  operations(): string[] {
    return this.routes.map((r) => `${r.method} ${r.template}`);
  }

  /** The document's path template for a concrete request path, if the documents have one. */
  templateOf(method: string, path: string): string | undefined {
    return this.match(method, path)?.route.template;
  }

  checkRequest(request: RequestToCheck): string[] {
    const match = this.match(request.method, request.path);
    if (!match) return [`${request.method} ${request.path} is not an operation of the vendor's document`];
    const { route, params } = match;
    const problems: string[] = [];
    const declaredQuery = new Set<string>();
    for (const parameter of route.parameters) {
      if (parameter.in === 'query') declaredQuery.add(parameter.name);
      if (parameter.in === 'header' && IGNORED_HEADER_PARAMETERS.has(parameter.name.toLowerCase())) continue;
      const raw =
        parameter.in === 'path'
          ? params[parameter.name]
          : parameter.in === 'query'
            ? request.query[parameter.name]
            : parameter.in === 'header'
              ? request.headers[parameter.name.toLowerCase()]
              : undefined;
      if (raw === undefined || raw === '') {
        if (parameter.required) problems.push(`${parameter.in} parameter "${parameter.name}" is required`);
        continue;
      }
      if (!parameter.schema) continue;
      const edits = this.deviationsFor(route, 'request').filter((d) => d.parameter === parameter.name);
      const validate = this.compile(`param ${route.method} ${route.template} ${parameter.in} ${parameter.name}`, parameter.schema, edits);
      for (const value of Array.isArray(raw) ? raw : [raw]) {
        const coerced = coerce(value, parameter.schema);
        if (!validate(coerced)) problems.push(...describe(validate.errors, `${parameter.in} parameter "${parameter.name}"`));
      }
    }
    for (const name of Object.keys(request.query)) {
      if (!declaredQuery.has(name)) problems.push(`query parameter "${name}" is not in the document`);
    }
    problems.push(...this.checkRequestBody(route, request));
    return problems;
  }

  checkResponse(response: ResponseToCheck): string[] {
    const match = this.match(response.method, response.path);
    if (!match) return [`${response.method} ${response.path} is not an operation of the vendor's document`];
    const { route } = match;
    const responses = route.operation.responses ?? {};
    const status = String(response.status);
    // Apidog files alternative bodies for one status under "x-<status>:<name>" keys.
    const deviations = this.deviationsFor(route, 'response', response.status);
    let keys = Object.keys(responses).filter((k) => k === status || k.startsWith(`x-${status}:`));
    keys.push(...deviations.flatMap((d) => (d.responseKey && responses[d.responseKey] ? [d.responseKey] : [])));
    if (keys.length === 0 && responses.default) keys = ['default'];
    if (keys.length === 0) return [`status ${status} is not documented for ${route.method} ${route.template}`];
    if (response.body === undefined || response.body === '') return [];
    const contentType = mediaTypeAlias(response.contentType, deviations);
    const transforms = bodyTransforms(response.contentType, deviations);
    if (contentType === null) return [];
    let firstProblems: string[] | undefined;
    for (const key of keys) {
      const content = responses[key]?.content;
      if (!content) continue;
      const media = pickMediaType(content, contentType);
      if (!media) {
        firstProblems ??= [`content type ${response.contentType ?? '(none)'} is not declared for status ${status}`];
        continue;
      }
      if (!media.schema) return [];
      const validate = this.compile(`response ${route.method} ${route.template} ${key} ${contentType}`, media.schema, deviations);
      const body = transforms.reduce<unknown>((b, transform) => transform(b), response.body);
      if (validate(body)) return [];
      firstProblems ??= describe(validate.errors, `response body (${key})`);
    }
    return firstProblems ?? [];
  }

  private checkRequestBody(route: Route, request: RequestToCheck): string[] {
    const declared = route.operation.requestBody;
    const sent = request.body !== undefined && !(isPlainObject(request.body) && Object.keys(request.body).length === 0 && !request.contentType);
    if (!sent) return declared?.required ? ['request body is required'] : [];
    if (!declared?.content) return ['the operation takes no request body'];
    const deviations = this.deviationsFor(route, 'request').filter((d) => d.parameter === undefined);
    const contentType = mediaTypeAlias(request.contentType, deviations);
    if (contentType === null) return [];
    const media = pickMediaType(declared.content, contentType);
    if (!media) return [`request content type ${request.contentType ?? '(none)'} is not one of ${Object.keys(declared.content).join(', ')}`];
    if (!media.schema) return [];
    const validate = this.compile(`request ${route.method} ${route.template} ${contentType}`, media.schema, deviations);
    const body = bodyTransforms(request.contentType, deviations).reduce<unknown>((b, transform) => transform(b), request.body);
    return validate(body) ? [] : describe(validate.errors, 'request body');
  }

  private deviationsFor(route: Route, target: 'request' | 'response', status?: number): Deviation[] {
    return (this.options.deviations ?? []).filter(
      (d) => d.method === route.method && d.path === route.template && d.target === target && (d.status === undefined || d.status === status),
    );
  }

  private compile(key: string, schema: Record<string, unknown>, deviations: Deviation[]): ValidateFunction {
    const cacheKey = `${key} ${deviations
      .filter((d) => d.schema)
      .map((d) => d.id)
      .join(',')}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      const document = this.documents[0]!;
      let json = dereference(schema, this.documents) as JsonSchema;
      if (document.openapi.startsWith('3.0')) json = fromSchema(json);
      delete json.$schema;
      for (const deviation of deviations) if (deviation.schema) json = deviation.schema(structuredClone(json));
      validate = this.ajv.compile(json);
      this.compiled.set(cacheKey, validate);
    }
    return validate;
  }

  private addRoutes(document: OpenApiDocument) {
    for (const [template, item] of Object.entries(document.paths ?? {})) {
      const pathParameters = ((item as { parameters?: unknown[] }).parameters ?? []) as OpenApiParameter[];
      for (const [method, operation] of Object.entries(item)) {
        if (!['get', 'put', 'post', 'delete', 'patch', 'head', 'options'].includes(method)) continue;
        const op = operation as OpenApiOperation;
        const names: string[] = [];
        const full = `${this.options.pathPrefix ?? ''}${template}`;
        const source = full
          .split('/')
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name: string | undefined) => {
              if (name) {
                names.push(name);
                return '([^/]+)';
              }
              return part.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
            }),
          )
          .join('/');
        const parameters = [...pathParameters, ...((op.parameters ?? []) as unknown[])].map((p) => dereference(p, [document]) as OpenApiParameter);
        this.routes.push({ method: method.toUpperCase(), template, pattern: new RegExp(`^${source}/?$`), names, operation: op, parameters });
      }
    }
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | undefined {
    const upper = method.toUpperCase();
    for (const route of this.routes) {
      if (route.method !== upper) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeURIComponent(found[i + 1]!)));
      return { route, params };
    }
    return undefined;
  }
}

function mediaTypeAlias(contentType: string | undefined, deviations: Deviation[]): string | undefined | null {
  const base = contentType?.split(';')[0]?.trim().toLowerCase();
  const alias = deviations.find((d) => d.mediaType && d.mediaType.from === base);
  return alias ? alias.mediaType!.to : base;
}

/** The body transforms of the deviations that apply to this content type (or to any). */
function bodyTransforms(contentType: string | undefined, deviations: Deviation[]): ((body: unknown) => unknown)[] {
  const base = contentType?.split(';')[0]?.trim().toLowerCase();
  return deviations.filter((d) => d.body && (!d.mediaType || d.mediaType.from === base)).map((d) => d.body!);
}

function pickMediaType(content: Record<string, OpenApiMediaType>, contentType: string | undefined): OpenApiMediaType | undefined {
  if (contentType && content[contentType]) return content[contentType];
  return content['*/*'];
}

/** Inlines local `$ref`s (the documents have no recursive schemas). */
function dereference(value: unknown, documents: OpenApiDocument[], depth = 0): unknown {
  if (depth > 64) throw new Error('schema references nest too deep');
  if (Array.isArray(value)) return value.map((v) => dereference(v, documents, depth + 1));
  if (!isPlainObject(value)) return value;
  const ref = value.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = resolvePointer(documents, ref.slice(2));
    if (target !== undefined) return dereference(target, documents, depth + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, dereference(v, documents, depth + 1)]));
}

function resolvePointer(documents: OpenApiDocument[], pointer: string): unknown {
  const parts = pointer.split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  for (const document of documents) {
    let node: unknown = document;
    for (const part of parts) node = isPlainObject(node) ? node[part] : undefined;
    if (node !== undefined) return node;
  }
  return undefined;
}

function coerce(value: unknown, schema: Record<string, unknown>): unknown {
  if (typeof value !== 'string') return value;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function describe(errors: ErrorObject[] | null | undefined, where: string): string[] {
  return (errors ?? []).map((e) => {
    const detail = e.params && 'allowedValues' in e.params ? ` (${JSON.stringify(e.params.allowedValues)})` : '';
    return `${where}${e.instancePath || ''}: ${e.message ?? 'is invalid'}${detail}`;
  });
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns the schema with the subschema at a JSON pointer replaced by `edit` of it. */
export function editAt(schema: JsonSchema, pointer: string, edit: (s: JsonSchema) => JsonSchema): JsonSchema {
  if (pointer === '') return edit(schema);
  const [head, ...rest] = pointer.replace(/^\//, '').split('/');
  const child = schema[head!];
  if (!isPlainObject(child)) throw new Error(`no subschema at ${pointer}`);
  return { ...schema, [head!]: editAt(child, rest.length ? `/${rest.join('/')}` : '', edit) };
}

/** An edit that lets a field also be of the given JSON types. */
export const alsoOfType =
  (...extra: string[]) =>
  (schema: JsonSchema): JsonSchema => {
    const current = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type as string] : [];
    return { ...schema, type: [...new Set([...current, ...extra])] };
  };

/** An edit of the subschema at a JSON pointer. */
export const at =
  (pointer: string, edit: (s: JsonSchema) => JsonSchema) =>
  (schema: JsonSchema): JsonSchema =>
    editAt(schema, pointer, edit);

/** Several edits in order. */
export const chain =
  (...edits: ((s: JsonSchema) => JsonSchema)[]) =>
  (schema: JsonSchema): JsonSchema =>
    edits.reduce((s, e) => e(s), schema);
