import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { apiErrorFromZod, contract, readHeaders, writeHeaders } from '../src/index.ts';
import type { RequestLocation } from '../src/index.ts';

function errorOf(schema: z.ZodTypeAny, input: unknown, location: RequestLocation) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a validation failure');
  const error = apiErrorFromZod(result.error, location);
  return { code: error.code, param: error.param, message: error.message };
}

const createEsim = contract.esim.createEsim.body;
const listEsims = contract.esim.listEsims.query;

describe('apiErrorFromZod', () => {
  it('maps an absent field to missing_parameter', () => {
    expect(errorOf(createEsim, { quantity: 1 }, 'body')).toEqual({
      code: 'missing_parameter',
      param: 'bundle',
      message: 'Missing required parameter `bundle` in the request body.',
    });
  });

  it('maps a wrong JSON type to invalid_parameter (no coercion in bodies)', () => {
    expect(errorOf(createEsim, { bundle: 'esim_5GB_30D_EU', quantity: '2' }, 'body')).toMatchObject({
      code: 'invalid_parameter',
      param: 'quantity',
      message: expect.stringContaining('must be an integer') as string,
    });
    expect(errorOf(contract.test.simulateUsage.body, { esim: 'esim_x', bytes: 1.5 }, 'body')).toMatchObject({
      code: 'invalid_parameter',
      param: 'bytes',
    });
    expect(errorOf(createEsim, { bundle: null }, 'body')).toMatchObject({ code: 'invalid_parameter', param: 'bundle' });
  });

  it('maps an out-of-range value to invalid_parameter naming the limit', () => {
    expect(errorOf(createEsim, { bundle: 'b', quantity: 11 }, 'body')).toEqual({
      code: 'invalid_parameter',
      param: 'quantity',
      message: 'Invalid parameter `quantity` in the request body: must be at most 10.',
    });
  });

  it('maps an unknown key to invalid_parameter with the key as param', () => {
    expect(errorOf(createEsim, { bundle: 'b', colour: 'red' }, 'body')).toEqual({
      code: 'invalid_parameter',
      param: 'colour',
      message: 'Unknown parameter `colour` in the request body: this operation does not accept it.',
    });
    expect(errorOf(listEsims, { page: '2' }, 'query')).toMatchObject({ code: 'invalid_parameter', param: 'page' });
  });

  it('joins nested paths with dots', () => {
    const body = { url: 'https://example.com/hook', enabled_events: ['esim.released', 'esim.nope'] };
    expect(errorOf(contract.webhooks.createWebhook.body, body, 'body')).toMatchObject({
      code: 'invalid_parameter',
      param: 'enabled_events.1',
    });
  });

  it('names the body itself when it is not an object', () => {
    expect(errorOf(createEsim, ['b'], 'body')).toMatchObject({ code: 'invalid_parameter', param: 'body' });
  });

  it.each(['abc', '1.5', '0', '101', '', '1e1'])('rejects limit=%j as invalid_parameter', (limit) => {
    expect(errorOf(listEsims, { limit }, 'query')).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });

  it('names headers canonically', () => {
    expect(errorOf(writeHeaders, { 'idempotency-key': 'short' }, 'headers')).toEqual({
      code: 'invalid_parameter',
      param: 'Idempotency-Key',
      message: 'Invalid header `Idempotency-Key`: must be at least 8 characters long.',
    });
  });

  it('applies the specification header rules: idempotency_key_required and unsupported_version', () => {
    expect(errorOf(writeHeaders, {}, 'headers')).toMatchObject({ code: 'idempotency_key_required', param: 'Idempotency-Key' });
    expect(errorOf(readHeaders, { 'service-version': '2025-01-01' }, 'headers')).toMatchObject({
      code: 'unsupported_version',
      param: 'Service-Version',
    });
  });
});
