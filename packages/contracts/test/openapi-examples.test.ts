import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, ERROR_CATALOGUE, EVENT_CATALOGUE, EVENT_TYPES, isErrorCode, WEBHOOK_HEADERS } from '../src/index.ts';
import { errorCodesOf } from '../src/openapi/examples/attach.ts';
import { eventComponentName } from '../src/openapi/webhooks.ts';

const BASE = 'https://api.example.test';
const document = buildOpenApiDocument({ serverUrl: BASE }) as unknown as Json;

type Json = Record<string, unknown>;
const COMPONENT = '#/components/schemas/';
const COMPONENTS_ID = 'https://openapi.test/components.json';
type Media = { schema?: Json; example?: unknown; examples?: Record<string, { value: unknown }> };
type Parameter = { name: string; in: string; schema?: Json; example?: unknown; $ref?: string };
type Operation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

// The document's schemas, loaded as one schema whose `$defs` they are: every `#/components/schemas/X`
// reference of the document then resolves to the component it names.
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS: its function is the module's `default` member under Node's ESM interop.
addFormats.default(ajv);
ajv.addFormat('binary', true);
ajv.addSchema({ $id: COMPONENTS_ID, $defs: rebase((document.components as Json).schemas) as Json });

function validate(schema: Json | undefined, value: unknown, where: string): void {
  expect(schema, `${where}: no schema`).toBeDefined();
  const check = ajv.compile(rebase(schema ?? {}) as Json);
  const valid = check(value);
  expect(valid ? [] : check.errors, where).toEqual([]);
}

function rebase(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rebase);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT) ? `${COMPONENTS_ID}#/$defs/${value.slice(COMPONENT.length)}` : rebase(value),
    ]),
  );
}

function resolveParameter(parameter: Parameter): Parameter {
  if (parameter.$ref === undefined) return parameter;
  const name = parameter.$ref.split('/').at(-1) ?? '';
  return ((document.components as Json).parameters as Record<string, Parameter>)[name] as Parameter;
}

function operations(section: 'paths' | 'webhooks'): [string, Operation][] {
  return Object.entries(document[section] as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]): [string, Operation] => [`${method.toUpperCase()} ${path}`, operation]),
  );
}

function mediaExamples(media: Media): unknown[] {
  return [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((item) => item.value)];
}

/** Every value under a key named `key`, anywhere in `value`. */
function valuesOf(value: unknown, key: string): unknown[] {
  if (Array.isArray(value)) return value.flatMap((item) => valuesOf(item, key));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([name, item]) => [...(name === key ? [item] : []), ...valuesOf(item, key)]);
}

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (const [index, char] of [...digits].reverse().entries()) {
    let digit = Number(char);
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

describe('the examples of openapi.json', () => {
  const all = [...operations('paths'), ...operations('webhooks')];

  it.each(all)('%s: its request body example matches the body schema', (where, operation) => {
    for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
      expect(media.example, `${where} ${type}`).toBeDefined();
      validate(media.schema, media.example, `${where} request ${type}`);
    }
  });

  it.each(all)('%s: every parameter has an example that matches its schema', (where, operation) => {
    for (const parameter of (operation.parameters ?? []).map(resolveParameter)) {
      expect(parameter.example, `${where} ${parameter.in} ${parameter.name}`).toBeDefined();
      validate(parameter.schema, parameter.example, `${where} ${parameter.in} ${parameter.name}`);
    }
  });

  it.each(operations('paths'))('%s: every response has an example, and each matches its schema', (where, operation) => {
    for (const [status, response] of Object.entries(operation.responses)) {
      const media = Object.entries(response.content ?? {});
      expect(media.length, `${where} ${status} documents no content`).toBeGreaterThan(0);
      expect(media.flatMap(([, item]) => mediaExamples(item)).length, `${where} ${status} has no example`).toBeGreaterThan(0);
      for (const [type, item] of media) {
        for (const example of mediaExamples(item)) validate(item.schema, example, `${where} ${status} ${type}`);
      }
    }
  });

  it.each(operations('paths'))('%s: each error status shows an error object of every code it stands for, linked to its page', (where, operation) => {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400) continue;
      const examples = response.content?.['application/json']?.examples ?? {};
      expect(Object.keys(examples).sort(), `${where} ${status}`).toEqual(errorCodesOf(operation.operationId, Number(status)).sort());
      expect(Object.keys(examples).length, `${where} ${status}`).toBeGreaterThan(0);
      for (const [code, { value }] of Object.entries(examples)) {
        expect(isErrorCode(code)).toBe(true);
        expect(value).toMatchObject({ error: { code, type: ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].type, link: `${BASE}/v1/errors/${code}` } });
      }
    }
  });

  it('shows realistic sandbox values: Luhn-valid ICCIDs of the service, sandbox activation codes, ids of the right shape', () => {
    const iccids = valuesOf(document, 'iccid').filter((value): value is string => typeof value === 'string');
    expect(iccids.length).toBeGreaterThan(0);
    for (const iccid of iccids) {
      expect(iccid).toMatch(/^89882\d{14}$/);
      expect(luhnValid(iccid), iccid).toBe(true);
    }
    const codes = valuesOf(document, 'activation_code').filter((value): value is string => typeof value === 'string');
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect(code).toMatch(/^LPA:1\$sandbox\.smdp\.invalid\$TEST-[0-9A-Z]{20}$/);
    for (const [key, prefix] of [
      ['id', /^(esim|ord|evt|key|we|msgatt|req|clock|btx|re|top)_[0-9a-z]{26}$/],
      ['event', /^evt_[0-9a-z]{26}$/],
    ] as const) {
      for (const value of valuesOf(document, key).filter((item): item is string => typeof item === 'string' && /^[a-z]+_/.test(item))) {
        expect(value, key).toMatch(prefix);
      }
    }
  });
});

describe('the webhooks section', () => {
  const webhooks = document.webhooks as Record<string, { post: Operation }>;

  it('has every event type of the catalogue, in catalogue order, each with its own payload schema', () => {
    expect(Object.keys(webhooks)).toEqual([...EVENT_TYPES]);
    const schemas = (document.components as Json).schemas as Record<string, Json>;
    for (const type of EVENT_TYPES) {
      const media = webhooks[type]?.post.requestBody?.content['application/json'];
      expect(media?.schema).toEqual({ $ref: `#/components/schemas/${eventComponentName(type)}` });
      const payload = schemas[eventComponentName(type)] as { properties: Record<string, Json> };
      expect(payload.properties.type).toMatchObject({ enum: [type] });
      const dataTitle = (EVENT_CATALOGUE[type].data as unknown as { metaOpenApi?: { title?: string } }).metaOpenApi?.title;
      expect(payload.properties.data).toEqual({ $ref: `#/components/schemas/${dataTitle ?? ''}` });
      expect((media?.example as { type?: string }).type).toBe(type);
    }
  });

  it('shows signature headers that a Standard Webhooks library computes for the body shown, with the example secret', () => {
    const secret = (
      ((document.paths as Json)['/v1/webhooks'] as Record<string, Operation>).post?.responses['201']?.content?.['application/json']?.example as {
        secret: string;
      }
    ).secret;
    for (const type of EVENT_TYPES) {
      const post = webhooks[type]?.post;
      const header = (name: string) => post?.parameters?.find((parameter) => parameter.name === name)?.example as string;
      const body = JSON.stringify(post?.requestBody?.content['application/json']?.example);
      const signed = new Webhook(secret).sign(header(WEBHOOK_HEADERS.id), new Date(Number(header(WEBHOOK_HEADERS.timestamp)) * 1000), body);
      expect(header(WEBHOOK_HEADERS.signature)).toBe(signed);
    }
  });
});
