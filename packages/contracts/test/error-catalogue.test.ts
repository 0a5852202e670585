import { describe, expect, it } from 'vitest';
import { DEFAULT_ERROR_MESSAGES, ERROR_CATALOGUE, ERROR_CODES, errorCodeItem, errorCodeItems, errorCodeItemSchema } from '../src/index.ts';

// The error table of the specification, row by row: code, type, status.
const SPEC_TABLE = [
  ['missing_parameter', 'invalid_request', 400],
  ['invalid_parameter', 'invalid_request', 400],
  ['unsupported_version', 'invalid_request', 400],
  ['idempotency_key_required', 'invalid_request', 400],
  ['body_not_json', 'invalid_request', 400],
  // The edge's own (record 0201), next to its type.
  ['request_timeout', 'invalid_request', 408],
  // Record 0204.
  ['method_not_allowed', 'invalid_request', 405],
  ['key_missing', 'authentication', 401],
  ['key_invalid', 'authentication', 401],
  ['key_revoked', 'authentication', 401],
  // The vendors' callbacks (record 0204).
  ['signature_invalid', 'authentication', 401],
  ['key_out_of_scope', 'permission', 403],
  ['test_key_live_resource', 'permission', 403],
  ['live_key_test_resource', 'permission', 403],
  ['verification_required', 'permission', 403],
  ['balance_insufficient', 'permission', 402],
  ['resource_not_found', 'not_found', 404],
  ['no_such_route', 'not_found', 404],
  ['idempotency_key_reused', 'conflict', 409],
  ['already_exists', 'conflict', 409],
  ['invalid_state_transition', 'conflict', 409],
  ['rate_limited', 'rate_limit', 429],
  ['capability_not_live', 'capability', 409],
  ['capability_not_orderable', 'capability', 409],
  ['pricing_unavailable', 'capability', 503],
  ['supplier_unavailable', 'supplier', 503],
  ['supplier_refused', 'supplier', 503],
  ['internal_error', 'internal', 500],
  // Not in the specification's table: the quotas of issue 31 (record 0211).
  ['quota_exceeded', 'permission', 403],
] as const;

describe('error catalogue', () => {
  it.each(SPEC_TABLE)('%s is %s / %i', (code, type, status) => {
    expect(ERROR_CATALOGUE[code]).toMatchObject({ type, status });
  });

  it("holds exactly the 25 codes, the edge's own and quota_exceeded, in table order", () => {
    expect(ERROR_CODES).toEqual(SPEC_TABLE.map(([code]) => code));
  });

  it('describes every code in one sentence and has a default message for it', () => {
    for (const code of ERROR_CODES) {
      expect(ERROR_CATALOGUE[code].description).toMatch(/^[A-Z`].{10,}\.$/);
      expect(DEFAULT_ERROR_MESSAGES[code].length).toBeGreaterThan(5);
    }
  });

  it('serves catalogue items that match the item schema', () => {
    expect(errorCodeItems()).toHaveLength(29);
    for (const item of errorCodeItems()) expect(errorCodeItemSchema.parse(item)).toEqual(item);
    expect(errorCodeItem('rate_limited')).toEqual({
      object: 'error_code',
      code: 'rate_limited',
      type: 'rate_limit',
      status: 429,
      description: ERROR_CATALOGUE.rate_limited.description,
    });
  });
});
