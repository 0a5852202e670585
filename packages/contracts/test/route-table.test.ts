import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, isRouteMatch, matchRoute, routeTable, STANDARD_ERROR_CODES } from '../src/index.ts';
import type { ErrorCode, RouteEntry } from '../src/index.ts';

function entry(method: string, path: string): RouteEntry {
  const match = matchRoute(method, path);
  if (!isRouteMatch(match)) throw new Error(`${method} ${path} did not match`);
  return match.entry;
}

describe('matchRoute', () => {
  it('matches static paths and extracts parameters', () => {
    expect(matchRoute('GET', '/v1/esim')).toMatchObject({ entry: { key: 'listEsims' }, params: {} });
    expect(matchRoute('POST', '/v1/esim')).toMatchObject({ entry: { key: 'createEsim' } });
    expect(matchRoute('GET', '/v1/esim/8988247000012345678')).toMatchObject({
      entry: { key: 'getEsim' },
      params: { id: '8988247000012345678' },
    });
    expect(matchRoute('get', '/v1/webhooks/we_123/deliveries?limit=5')).toMatchObject({
      entry: { key: 'listWebhookDeliveries' },
      params: { id: 'we_123' },
    });
    expect(matchRoute('GET', '/v1/errors/rate_limited')).toMatchObject({ params: { code: 'rate_limited' } });
    expect(matchRoute('GET', '/v1/esim/esim_123/qr_code')).toMatchObject({ entry: { key: 'getEsimQrCode' }, params: { id: 'esim_123' } });
    expect(matchRoute('POST', '/v1/test/clocks/clock_123/advance')).toMatchObject({ entry: { key: 'advanceTestClock' }, params: { id: 'clock_123' } });
    expect(matchRoute('DELETE', '/v1/test/clocks/clock_123')).toMatchObject({ entry: { key: 'deleteTestClock' }, params: { id: 'clock_123' } });
  });

  it('decodes parameters', () => {
    expect(matchRoute('GET', '/v1/esim/a%20b')).toMatchObject({ params: { id: 'a b' } });
    expect(matchRoute('GET', '/v1/esim/%E0%A4%A')).toEqual({ pathKnown: false, allowedMethods: [] });
  });

  it('lets static segments win over parameters', () => {
    expect(matchRoute('GET', '/v1/esim/bundles')).toMatchObject({ entry: { key: 'listBundles' }, params: {} });
    expect(matchRoute('PATCH', '/v1/esim/bundles')).toEqual({ pathKnown: true, allowedMethods: ['GET'] });
    expect(matchRoute('POST', '/v1/events/replay')).toMatchObject({ entry: { key: 'replayEvents' } });
    expect(matchRoute('GET', '/v1/events/stream?types=esim.*')).toMatchObject({ entry: { key: 'streamEvents', metadata: { stream: true } } });
  });

  it('tells a known path with another method from an unknown path', () => {
    expect(matchRoute('DELETE', '/v1/esim/esim_123')).toEqual({ pathKnown: true, allowedMethods: ['GET', 'PATCH'] });
    expect(matchRoute('PUT', '/v1/version')).toEqual({ pathKnown: true, allowedMethods: ['GET'] });
    expect(matchRoute('GET', '/v1/sims')).toEqual({ pathKnown: false, allowedMethods: [] });
    expect(matchRoute('GET', '/v1/esim/')).toEqual({ pathKnown: false, allowedMethods: [] });
    expect(matchRoute('GET', '/v1/esim/a/b')).toEqual({ pathKnown: false, allowedMethods: [] });
    expect(matchRoute('GET', '/v2/esim')).toEqual({ pathKnown: false, allowedMethods: [] });
  });
});

describe('route metadata', () => {
  it('has unique keys', () => {
    const keys = routeTable.map((item) => item.key);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('marks every mutating route idempotent, with a required Idempotency-Key header', () => {
    for (const { route, metadata, key } of routeTable) {
      const mutating = route.method !== 'GET';
      expect(metadata.idempotent, key).toBe(mutating);
      const headers = route.headers as { shape?: Record<string, { isOptional(): boolean }> } | undefined;
      if (mutating) {
        expect(headers?.shape?.['idempotency-key']?.isOptional(), key).toBe(false);
        expect(metadata.errors, key).toContain('idempotency_key_required');
      } else {
        expect(headers?.shape?.['idempotency-key'], key).toBeUndefined();
      }
    }
  });

  it('assigns each route to its owning service', () => {
    const owners: Record<string, string> = {
      'GET /v1/version': 'gateway',
      'GET /v1/event_types': 'gateway',
      'GET /v1/error_codes': 'gateway',
      'GET /v1/errors/:code': 'gateway',
      'GET /v1/api_keys': 'gateway',
      'GET /v1/request_logs': 'gateway',
      'GET /v1/openapi.json': 'gateway',
      'GET /v1/esim/bundles': 'catalogue',
      'GET /v1/esim': 'inventory',
      'POST /v1/esim': 'inventory',
      'GET /v1/esim/:id': 'inventory',
      'PATCH /v1/esim/:id': 'inventory',
      'GET /v1/esim/:id/qr_code': 'inventory',
      'GET /v1/esim/:id/topups': 'inventory',
      'POST /v1/esim/:id/topups': 'inventory',
      'GET /v1/esim/:id/bundles': 'inventory',
      'GET /v1/balance': 'inventory',
      'GET /v1/balance_transactions': 'inventory',
      'GET /v1/refunds': 'inventory',
      'GET /v1/refunds/:id': 'inventory',
      'POST /v1/test/balance': 'inventory',
      'POST /v1/test/refunds/:id/settle': 'inventory',
      'POST /v1/test/usage': 'sandbox-simulator',
      'POST /v1/test/error': 'sandbox-simulator',
      'POST /v1/test/clocks': 'inventory',
      'GET /v1/test/clocks': 'inventory',
      'GET /v1/test/clocks/:id': 'inventory',
      'DELETE /v1/test/clocks/:id': 'inventory',
      'POST /v1/test/clocks/:id/advance': 'inventory',
      'GET /v1/events': 'notifications',
      'GET /v1/events/stream': 'notifications',
      'POST /v1/events/replay': 'notifications',
      'POST /v1/webhooks': 'notifications',
      'GET /v1/webhooks': 'notifications',
      'GET /v1/webhooks/:id': 'notifications',
      'PATCH /v1/webhooks/:id': 'notifications',
      'DELETE /v1/webhooks/:id': 'notifications',
      'GET /v1/webhooks/:id/deliveries': 'notifications',
    };
    const actual = Object.fromEntries(routeTable.map(({ route, metadata }) => [`${route.method} ${route.path}`, metadata.service]));
    expect(actual).toEqual(owners);
  });

  it('requires the scopes of record 0254', () => {
    const scopes = Object.fromEntries(routeTable.map(({ key, metadata }) => [key, metadata.scopes]));
    expect(scopes).toEqual({
      getVersion: [],
      listEventTypes: [],
      listErrorCodes: [],
      getErrorCode: [],
      getOpenApiDocument: [],
      listApiKeys: ['keys:read'],
      listRequestLogs: ['keys:read'],
      listBundles: ['catalogue:read'],
      listEsims: ['esim:read'],
      createEsim: ['esim:write'],
      getEsim: ['esim:read'],
      updateEsim: ['esim:write'],
      getEsimQrCode: ['esim:read'],
      listEsimTopupOffers: ['esim:read'],
      createEsimTopup: ['esim:write'],
      listEsimBundles: ['esim:read'],
      getBalance: ['balance:read'],
      listBalanceTransactions: ['balance:read'],
      listRefunds: ['balance:read'],
      getRefund: ['balance:read'],
      settleTestRefund: ['test_helpers'],
      setTestBalance: ['test_helpers'],
      listEvents: ['events:read'],
      streamEvents: ['events:read'],
      replayEvents: ['events:write'],
      createWebhook: ['webhooks:write'],
      listWebhooks: ['webhooks:read'],
      getWebhook: ['webhooks:read'],
      updateWebhook: ['webhooks:write'],
      deleteWebhook: ['webhooks:write'],
      listWebhookDeliveries: ['webhooks:read'],
      simulateUsage: ['test_helpers'],
      triggerTestError: ['test_helpers'],
      createTestClock: ['test_helpers'],
      listTestClocks: ['test_helpers'],
      getTestClock: ['test_helpers'],
      deleteTestClock: ['test_helpers'],
      advanceTestClock: ['test_helpers'],
    });
  });

  // Beyond the specification, the event stream is for test keys too (record 0257).
  it('needs a key everywhere but openapi.json, and marks only /v1/test/* and the event stream test-only', () => {
    for (const { route, metadata } of routeTable) {
      expect(metadata.auth).toBe(route.path !== '/v1/openapi.json');
      expect(metadata.testOnly === true).toBe(route.path.startsWith('/v1/test/') || route.path === '/v1/events/stream');
    }
  });

  // The "Errors:" list of each endpoint of the specification, beyond S.
  const SPEC_ERRORS: Record<string, ErrorCode[]> = {
    'GET /v1/version': [],
    'GET /v1/event_types': [],
    'GET /v1/error_codes': [],
    'GET /v1/esim/bundles': ['invalid_parameter', 'capability_not_orderable', 'pricing_unavailable', 'supplier_unavailable'],
    'GET /v1/esim': [],
    'POST /v1/esim': [
      'missing_parameter',
      'invalid_parameter',
      'idempotency_key_required',
      'balance_insufficient',
      'verification_required',
      'idempotency_key_reused',
      'capability_not_orderable',
      'supplier_refused',
    ],
    'GET /v1/esim/:id': ['test_key_live_resource', 'live_key_test_resource', 'resource_not_found'],
    'PATCH /v1/esim/:id': [
      'missing_parameter',
      'invalid_parameter',
      'idempotency_key_required',
      'test_key_live_resource',
      'live_key_test_resource',
      'resource_not_found',
      'invalid_state_transition',
      'capability_not_orderable',
    ],
    'GET /v1/events': [],
    'POST /v1/events/replay': ['idempotency_key_required', 'resource_not_found'],
    'GET /v1/api_keys': [],
    'POST /v1/test/usage': ['missing_parameter', 'invalid_parameter', 'idempotency_key_required', 'live_key_test_resource', 'resource_not_found'],
    'POST /v1/test/error': ['missing_parameter', 'invalid_parameter', 'idempotency_key_required', 'live_key_test_resource'],
  };

  it.each(Object.entries(SPEC_ERRORS))('%s documents S and its listed errors, with their statuses', (key, extra) => {
    const [method = '', path = ''] = key.split(' ');
    const { metadata, route } = entry(method, path.replace(':id', 'x'));
    for (const code of [...STANDARD_ERROR_CODES, ...extra]) expect(metadata.errors).toContain(code);
    const statuses = Object.keys(route.responses).map(Number);
    for (const code of metadata.errors) expect(statuses).toContain(ERROR_CATALOGUE[code].status);
  });

  it('documents nothing but 200 for openapi.json', () => {
    const { metadata, route } = entry('GET', '/v1/openapi.json');
    expect(metadata.errors).toEqual([]);
    expect(Object.keys(route.responses)).toEqual(['200']);
  });

  it('never documents already_exists, body_not_json or capability_not_live (spec rule 5)', () => {
    for (const { metadata } of routeTable) {
      expect(metadata.errors).not.toContain('already_exists');
      expect(metadata.errors).not.toContain('body_not_json');
      expect(metadata.errors).not.toContain('capability_not_live');
    }
  });
});
