import { request as httpRequest } from 'node:http';
import { routeTable } from '@connectivity/contracts';
import { createAccount } from '@connectivity/gateway';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../src/local-stack.ts';

/**
 * Property-based fuzzing through the gateway, over every route of the contract, to the real
 * services: random methods, paths, query strings, headers and bodies (wrong types, huge, nested,
 * NUL, invalid UTF-8, repeated query keys, arrays for scalars). Whatever arrives: no 5xx, every
 * answer that is not 2xx is the spec's error object with its `link`, and no body shows a stack
 * trace or a path of the machine.
 */
const RUNS = 3_000;

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
}
interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

// Text that breaks things: NUL, lone surrogates, traversal, URL syntax, SQL and JSON syntax, long runs.
const nasty = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  '..',
  '../..',
  '%',
  '%00',
  '%zz',
  '?',
  '#',
  '/',
  "'; drop table x; --",
  '{"a":',
  'esim_5GB_30D_EU',
  'evt_00000000000000000000000000',
  '8988247000000000019',
  '*',
  '',
  ' ',
  'x'.repeat(5_000),
);
const text = fc.oneof(nasty, fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 20 }));
const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.bigInt().map(String));
const json = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('value'), { maxLength: 4 }), fc.dictionary(text, tie('value'), { maxKeys: 4 })),
})).value;
// Deep nesting that a naive recursive walker would not survive.
const deep = fc.integer({ min: 100, max: 3_000 }).map((depth) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`) as unknown);

/** A body for a route: its own fields with random values, extra fields, or anything at all. */
function bodyFor(fields: string[]): fc.Arbitrary<Buffer | undefined> {
  const objectOfFields = fc.record(Object.fromEntries(fields.map((field) => [field, json])), { requiredKeys: [] });
  const parsed = fc.oneof(
    objectOfFields,
    fc.tuple(objectOfFields, fc.dictionary(text, json, { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a })),
    json,
    deep.map((value) => ({ [fields[0] ?? 'x']: value })),
  );
  // Over the 1 MiB limit.
  const huge = fc.nat({ max: 100_000 }).map((n) => Buffer.from(JSON.stringify({ [fields[0] ?? 'x']: 'x'.repeat(1_100_000 + n) })));
  return fc.oneof(
    { weight: 6, arbitrary: parsed.map((value) => Buffer.from(JSON.stringify(value) ?? 'null')) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)) },
    { weight: 1, arbitrary: fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xff, 0x22, 0x7d])) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: huge },
  );
}

/** Percent-encodes the UTF-8 bytes of any string (lone surrogates too, as U+FFFD, as a client would). */
const encode = (value: string): string =>
  [...Buffer.from(value, 'utf8')]
    .map((byte) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');

/** A path segment as a client might send it: encoded, half-encoded, or with URL syntax kept. */
const segment = text
  .map((value) => encode(value))
  .chain((encoded) => fc.constantFrom(encoded, encoded.replaceAll('%2F', '/'), encoded.replaceAll('%25', '%'), encoded.replaceAll('%2E', '.')));

const schemaKeys = (schema: unknown): string[] => {
  const shape = schema as { shape?: Record<string, unknown>; _def?: { schema?: unknown; innerType?: unknown } } | undefined;
  if (!shape) return [];
  if (shape.shape) return Object.keys(shape.shape);
  return schemaKeys(shape._def?.schema ?? shape._def?.innerType);
};

function requestFor(keys: string[]): fc.Arbitrary<Sent> {
  return fc.constantFrom(...routeTable).chain((entry) => {
    const declaredQuery = schemaKeys((entry.route as { query?: unknown }).query);
    const declaredBody = schemaKeys((entry.route as { body?: unknown }).body);
    const path = fc
      .array(fc.oneof({ weight: 4, arbitrary: segment }, { weight: 1, arbitrary: fc.constantFrom('sample', 'esim_x', 'we_x', 'evt_x') }), {
        minLength: 3,
        maxLength: 3,
      })
      .map((values) => entry.route.path.replace(/:[A-Za-z]+/g, () => values.shift() ?? 'x'));
    const query = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...declaredQuery, 'limit', 'cursor', 'x'), text), fc.oneof(text, fc.integer().map(String))), {
      maxLength: 4,
    });
    const headers = fc.record(
      {
        authorization: fc.oneof(
          { weight: 8, arbitrary: fc.constantFrom(...keys).map((key) => `Bearer ${key}`) },
          { weight: 1, arbitrary: text.map((value) => value.replace(/[^\x20-\x7e]/g, '')) },
        ),
        // Mostly the served version, so most requests get past the version check to the services.
        'service-version': fc.oneof({ weight: 6, arbitrary: fc.constant('2026-09-01') }, { weight: 1, arbitrary: fc.constantFrom('2020-01-01', '', 'x') }),
        'idempotency-key': fc.oneof(
          fc.string({ minLength: 8, maxLength: 20 }).map((value) => value.replace(/[^\x21-\x7e]/g, 'k')),
          fc.constantFrom('short', 'k'.repeat(200)),
        ),
        'content-type': fc.oneof(
          { weight: 6, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded') },
        ),
      },
      { requiredKeys: ['authorization'] },
    );
    return fc
      .record({
        method: fc.oneof(
          { weight: 5, arbitrary: fc.constant(entry.route.method) },
          { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'OPTIONS') },
        ),
        path: path.map((p) => (p.startsWith('/') ? p : `/${p}`)),
        query,
        headers,
        body: bodyFor(declaredBody),
      })
      .map(({ method, path: p, query: q, headers: h, body }) => {
        const search = q.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
        return { method, path: search ? `${p}?${search}` : p, headers: h, body: method === 'GET' ? undefined : body };
      });
  });
}

/** The answer of POST /v1/test/error that names the very code the body asked for. */
function isChosenError(sent: Sent, got: Got): boolean {
  if (sent.method !== 'POST' || !sent.path.startsWith('/v1/test/error')) return false;
  try {
    const asked = (JSON.parse(sent.body?.toString('utf8') ?? '') as { code?: unknown }).code;
    return typeof asked === 'string' && (JSON.parse(got.text) as { error?: { code?: unknown } }).error?.code === asked;
  } catch {
    return false;
  }
}

describe('fuzzing the public API', () => {
  let stack: LocalStack;
  let keys: string[] = [];

  beforeAll(async () => {
    stack = await startLocalStack({ RATE_LIMIT_PER_MINUTE: '100000000' });
    const account = await createAccount(stack.db.knex);
    keys = [account.test.secret];
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  });

  const send = (sent: Sent): Promise<Got> => {
    const { hostname, port } = new URL(stack.composition.gatewayUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ hostname, port, method: sent.method, path: sent.path, headers: sent.headers }, (res) => {
        // An event stream never ends by itself: its status and headers are the answer to check.
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
          req.destroy();
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', reject);
      req.end(sent.body);
    });
  };

  test(`no 5xx, every error is the error object, nothing internal leaks (${RUNS} requests)`, async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(keys), async (sent) => {
        const got = await send(sent);
        const where = `${sent.method} ${sent.path.slice(0, 200)} -> ${got.status} ${got.text.slice(0, 300)}`;
        // /v1/test/error answers with the status of the code it was asked for, 5xx included.
        if (!isChosenError(sent, got)) expect(got.status, where).toBeLessThan(500);
        expect(got.headers['request-id'], where).toMatch(/^req_/);
        expect(got.text, where).not.toMatch(/\bat .+\.(ts|js|mjs):\d+|node_modules|node:internal|file:\/\/|\/work\//);
        if (got.status >= 400) {
          const body = JSON.parse(got.text) as { error?: { code?: unknown; type?: unknown; message?: unknown; link?: unknown } };
          expect(typeof body.error?.code, where).toBe('string');
          expect(typeof body.error?.type, where).toBe('string');
          expect(typeof body.error?.message, where).toBe('string');
          expect(body.error?.link, where).toBe(`http://localhost:8080/v1/errors/${String(body.error?.code)}`);
        }
      }),
      { numRuns: RUNS },
    );
  }, 300_000);
});
