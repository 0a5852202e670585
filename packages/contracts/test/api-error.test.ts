import { describe, expect, it } from 'vitest';
import { ApiError, DEFAULT_ERROR_MESSAGES, errorResponseSchema, isApiError } from '../src/index.ts';

const BASE = 'https://api.example.test';

describe('ApiError', () => {
  it('takes type and status from the catalogue and a default message', () => {
    const error = new ApiError('resource_not_found');
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'ApiError', code: 'resource_not_found', type: 'not_found', status: 404 });
    expect(error.message).toBe(DEFAULT_ERROR_MESSAGES.resource_not_found);
  });

  it('renders the minimal body without absent optional fields', () => {
    const body = new ApiError('key_missing').toBody(BASE);
    expect(body).toEqual({
      error: {
        type: 'authentication',
        code: 'key_missing',
        message: DEFAULT_ERROR_MESSAGES.key_missing,
        link: `${BASE}/v1/errors/key_missing`,
      },
    });
    expect(Object.keys(body.error)).toEqual(['type', 'code', 'message', 'link']);
    expect(errorResponseSchema.parse(body)).toEqual(body);
  });

  it('renders param, message and detail when given', () => {
    const body = new ApiError('invalid_parameter', { param: 'quantity', message: 'quantity must be 1 to 10', detail: 'got 11' }).toBody(`${BASE}/`);
    expect(body).toEqual({
      error: {
        type: 'invalid_request',
        code: 'invalid_parameter',
        message: 'quantity must be 1 to 10',
        param: 'quantity',
        link: `${BASE}/v1/errors/invalid_parameter`,
        detail: 'got 11',
      },
    });
  });

  it('keeps the cause', () => {
    const cause = new Error('boom');
    expect(new ApiError('internal_error', { cause }).cause).toBe(cause);
  });

  it('is recognised by isApiError, plain errors are not', () => {
    expect(isApiError(new ApiError('rate_limited'))).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
    expect(isApiError({ code: 'rate_limited' })).toBe(false);
    expect(isApiError(undefined)).toBe(false);
  });
});
