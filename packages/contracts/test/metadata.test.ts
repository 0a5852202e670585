import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { apiErrorFromZod, contract, foldMetadataQuery, metadataProblems, type RequestLocation } from '../src/index.ts';

function errorOf(schema: z.ZodTypeAny, input: unknown, location: RequestLocation) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a validation failure');
  const error = apiErrorFromZod(result.error, location);
  return { code: error.code, param: error.param, message: error.message };
}

const createEsim = contract.esim.createEsim.body;
const updateEsim = contract.esim.updateEsim.body;
const listEsims = contract.esim.listEsims.query;
const manyKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key_${i}`, 'v']));

describe('metadata in request bodies', () => {
  it('accepts up to 50 keys of up to 40 characters with string values of up to 500 characters', () => {
    const metadata = { ...manyKeys(49), ['k'.repeat(40)]: 'v'.repeat(500) };
    expect(createEsim.parse({ bundle: 'b', metadata })).toEqual({ bundle: 'b', quantity: 1, metadata });
    // Characters, not UTF-16 units: 40 emoji make a key of 40 characters.
    const emoji = '😀'.repeat(40);
    expect(createEsim.parse({ bundle: 'b', metadata: { [emoji]: '😀'.repeat(500) } }).metadata).toEqual({ [emoji]: '😀'.repeat(500) });
    expect(createEsim.parse({ bundle: 'b', metadata: {} }).metadata).toEqual({});
  });

  it('names the key at fault as metadata[key]', () => {
    expect(errorOf(createEsim, { bundle: 'b', metadata: manyKeys(51) }, 'body')).toEqual({
      code: 'invalid_parameter',
      param: 'metadata',
      message: 'Invalid parameter `metadata` in the request body: must have at most 50 keys (it has 51).',
    });
    const long = 'k'.repeat(41);
    expect(errorOf(createEsim, { bundle: 'b', metadata: { [long]: 'v' } }, 'body')).toMatchObject({ code: 'invalid_parameter', param: `metadata[${long}]` });
    expect(errorOf(createEsim, { bundle: 'b', metadata: { 'a[b]': 'v' } }, 'body')).toMatchObject({ param: 'metadata[a[b]]' });
    expect(errorOf(createEsim, { bundle: 'b', metadata: { '': 'v' } }, 'body')).toMatchObject({ param: 'metadata[]' });
    for (const value of [1, true, null, { a: 'b' }, ['x']]) {
      expect(errorOf(createEsim, { bundle: 'b', metadata: { ok: 'v', count: value } }, 'body')).toEqual({
        code: 'invalid_parameter',
        param: 'metadata[count]',
        message: 'Invalid parameter `metadata[count]` in the request body: must be a string.',
      });
    }
    expect(errorOf(createEsim, { bundle: 'b', metadata: { note: 'v'.repeat(501) } }, 'body')).toMatchObject({
      param: 'metadata[note]',
      message: expect.stringContaining('at most 500 characters') as string,
    });
    for (const metadata of ['x', ['x'], null, 3]) {
      expect(errorOf(createEsim, { bundle: 'b', metadata }, 'body')).toMatchObject({ code: 'invalid_parameter', param: 'metadata' });
    }
  });

  it('PATCH takes state, metadata or both; "" values (removals) are allowed there', () => {
    expect(updateEsim.parse({ state: 'active' })).toEqual({ state: 'active' });
    expect(updateEsim.parse({ metadata: { a: '' } })).toEqual({ metadata: { a: '' } });
    expect(updateEsim.parse({ state: 'expired', metadata: { a: 'b' } })).toEqual({ state: 'expired', metadata: { a: 'b' } });
    expect(errorOf(updateEsim, {}, 'body')).toMatchObject({ code: 'missing_parameter', param: 'state' });
    expect(errorOf(updateEsim, { state: 'paused' }, 'body')).toMatchObject({ code: 'invalid_parameter', param: 'state' });
    expect(errorOf(updateEsim, { metadata: { a: 2 } }, 'body')).toMatchObject({ code: 'invalid_parameter', param: 'metadata[a]' });
    expect(errorOf(updateEsim, { metadata: {}, extra: 1 }, 'body')).toMatchObject({ code: 'invalid_parameter', param: 'extra' });
  });
});

describe('the metadata filter of GET /v1/esim', () => {
  it('reads metadata[key]=value whether the query parser nests (qs) or not (express 5 default)', () => {
    expect(listEsims.parse({ 'metadata[order]': 'A-1', 'metadata[site]': 'x', limit: '5' })).toEqual({ limit: 5, metadata: { order: 'A-1', site: 'x' } });
    expect(listEsims.parse({ metadata: { order: 'A-1' } })).toEqual({ limit: 20, metadata: { order: 'A-1' } });
    expect(listEsims.parse({})).toEqual({ limit: 20 });
    expect(foldMetadataQuery({ 'metadata[__proto__]': 'x' })).toEqual({ metadata: Object.assign(Object.create(null) as object, { ['__proto__']: 'x' }) });
  });

  it('refuses bad pairs naming metadata[key], and other keys as unknown parameters', () => {
    expect(errorOf(listEsims, { 'metadata[a]': ['1', '2'] }, 'query')).toMatchObject({ code: 'invalid_parameter', param: 'metadata[a]' });
    expect(errorOf(listEsims, { 'metadata[a]': '' }, 'query')).toMatchObject({
      param: 'metadata[a]',
      message: expect.stringContaining('must not be empty') as string,
    });
    expect(errorOf(listEsims, { [`metadata[${'k'.repeat(41)}]`]: 'v' }, 'query')).toMatchObject({ param: `metadata[${'k'.repeat(41)}]` });
    expect(errorOf(listEsims, { 'metadata[a][b]': 'v' }, 'query')).toMatchObject({ param: 'metadata[a][b]' });
    expect(errorOf(listEsims, { metadata: 'x' }, 'query')).toMatchObject({ code: 'invalid_parameter', param: 'metadata' });
    expect(errorOf(listEsims, { metadata: 'x', 'metadata[a]': 'y' }, 'query')).toMatchObject({ code: 'invalid_parameter', param: 'metadata' });
    expect(errorOf(listEsims, Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`metadata[k${i}]`, 'v'])), 'query')).toMatchObject({
      param: 'metadata',
    });
    expect(errorOf(listEsims, { 'meta[a]': 'v' }, 'query')).toMatchObject({ code: 'invalid_parameter', param: 'meta[a]' });
  });

  it('lists the problems of a metadata object in key order', () => {
    expect(metadataProblems({ a: 'ok', b: 1, 'c]': 'x' }, { allowEmpty: true })).toEqual([
      { param: 'metadata[b]', message: 'must be a string' },
      { param: 'metadata[c]]', message: 'must be a key without `[` or `]`' },
    ]);
  });
});
