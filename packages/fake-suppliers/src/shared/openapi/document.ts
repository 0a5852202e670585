import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The parts of an OpenAPI document the validator reads; the rest stays as loaded. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  required?: boolean;
  schema?: Record<string, unknown>;
}

export interface OpenApiMediaType {
  schema?: Record<string, unknown>;
}

export interface OpenApiOperation {
  parameters?: (OpenApiParameter | { $ref: string })[];
  requestBody?: { required?: boolean; content?: Record<string, OpenApiMediaType> };
  responses?: Record<string, { content?: Record<string, OpenApiMediaType> }>;
}

export interface LoadOptions {
  /** How the file's bytes are text: the vendors do not all publish UTF-8. */
  encoding?: 'utf-8' | 'macintosh';
  /** A named repair of the text before parsing, for a document that is not valid YAML as published. */
  repairText?: (text: string) => string;
  /** A named repair of the parsed document, for a construct no schema tool accepts. */
  repairDocument?: (document: OpenApiDocument) => void;
}

/** Reads a vendor's OpenAPI document (YAML or JSON) from the package's vendor folder. */
export function loadOpenApiDocument(file: URL, options: LoadOptions = {}): OpenApiDocument {
  const bytes = readFileSync(file);
  let text = new TextDecoder(options.encoding ?? 'utf-8', { fatal: true }).decode(bytes);
  if (options.repairText) text = options.repairText(text);
  const document = parse(text, { maxAliasCount: -1 }) as OpenApiDocument;
  options.repairDocument?.(document);
  return document;
}
