import { describe, expect, it } from 'vitest';
import {
  apiKeySchema,
  bundleSchema,
  contract,
  esimSchema,
  idPattern,
  listOf,
  orderSchema,
  replaySchema,
  versionSchema,
  webhookAttemptSchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from '../src/index.ts';
import { apiKey, bundle, esim, NOW, order } from './fixtures.ts';

const endpoint = {
  object: 'webhook_endpoint',
  id: 'we_01jd8x7k2m9q4r5s6t7v8w9xyz',
  url: 'https://example.com/hooks',
  description: null,
  enabled_events: ['*'],
  disabled: false,
  disabled_reason: null,
  environment: 'test',
  created_at: NOW,
  updated_at: NOW,
} as const;

describe('resource schemas', () => {
  it('accept realistic objects', () => {
    expect(esimSchema.parse(esim)).toEqual(esim);
    expect(bundleSchema.parse(bundle)).toEqual(bundle);
    expect(orderSchema.parse(order)).toEqual(order);
    expect(apiKeySchema.parse(apiKey)).toEqual(apiKey);
    expect(webhookEndpointSchema.parse(endpoint)).toEqual(endpoint);
    expect(versionSchema.parse({ object: 'version', version: '2026-09-01', serves: ['2026-09-01'] })).toBeTruthy();
    expect(replaySchema.parse({ object: 'replay', queued: 3, endpoints: 1, since: NOW, event: null })).toBeTruthy();
    const attempt = {
      object: 'webhook_delivery_attempt',
      id: 'msgatt_01jd8x7k2m9q4r5s6t7v8w9xyz',
      endpoint: endpoint.id,
      event: 'evt_01jd8x7k2m9q4r5s6t7v8w9xyz',
      event_type: 'esim.released',
      attempt: 2,
      status: 'failed',
      status_code: 503,
      error: 'http_status',
      duration_ms: 120,
      next_retry_at: NOW + 300,
      created_at: NOW,
    };
    expect(webhookAttemptSchema.parse(attempt)).toEqual(attempt);
    // What went wrong is a class, never raw text.
    expect(webhookAttemptSchema.safeParse({ ...attempt, error: 'Connection refused.' }).success).toBe(false);
  });

  it('wraps items in the list envelope', () => {
    const list = { object: 'list', data: [esim], has_more: false, next_cursor: null };
    expect(listOf('EsimList', esimSchema).parse(list)).toEqual(list);
  });

  it('enforce ids, ICCIDs and second timestamps', () => {
    expect(idPattern('esim').test('esim_01jd8x7k2m9q4r5s6t7v')).toBe(true);
    expect(idPattern('esim').test('esim_short')).toBe(false);
    expect(idPattern('esim').test('ord_01jd8x7k2m9q4r5s6t7v8w9xyz')).toBe(false);
    expect(esimSchema.safeParse({ ...esim, iccid: '898824700001234567' }).success).toBe(false);
    expect(esimSchema.safeParse({ ...esim, created_at: NOW * 1000 }).success).toBe(false);
  });

  it('carry the webhook secret only on the create response', () => {
    expect('secret' in webhookEndpointSchema.shape).toBe(false);
    const created = { ...endpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
    expect(webhookEndpointWithSecretSchema.parse(created)).toEqual(created);
    expect(contract.webhooks.createWebhook.responses[201]).toBe(webhookEndpointWithSecretSchema);
    expect(contract.webhooks.getWebhook.responses[200]).toBe(webhookEndpointSchema);
  });
});

describe('request parameters', () => {
  const query = contract.esim.listEsims.query;
  const body = contract.esim.createEsim.body;

  it('limit defaults to 20 and accepts numeric strings from 1 to 100', () => {
    expect(query.parse({})).toEqual({ limit: 20 });
    expect(query.parse({ limit: '1', cursor: 'abc' })).toEqual({ limit: 1, cursor: 'abc' });
    expect(query.parse({ limit: '100' })).toEqual({ limit: 100 });
    expect(query.parse({ limit: 7 })).toEqual({ limit: 7 });
  });

  it('quantity defaults to 1 and accepts 1 to 10', () => {
    expect(body.parse({ bundle: 'b' })).toEqual({ bundle: 'b', quantity: 1 });
    expect(body.parse({ bundle: 'b', quantity: 10 })).toEqual({ bundle: 'b', quantity: 10 });
    expect(body.safeParse({ bundle: 'b', quantity: 0 }).success).toBe(false);
  });

  it('countries is a comma list of two-letter codes, returned upper case', () => {
    const bundles = contract.catalogue.listBundles.query;
    expect(bundles.parse({ countries: 'gb,Fr' })).toMatchObject({ countries: ['GB', 'FR'] });
    for (const countries of ['GBR', 'GB,', 'G1', 'GB FR']) expect(bundles.safeParse({ countries }).success).toBe(false);
    expect(bundles.parse({ region: 'latin-america' })).toMatchObject({ region: 'latin-america' });
    expect(bundles.safeParse({ region: 'mars' }).success).toBe(false);
  });

  it('bytes is an integer of at least 1', () => {
    const usage = contract.test.simulateUsage.body;
    expect(usage.parse({ esim: esim.id, bytes: 1 })).toEqual({ esim: esim.id, bytes: 1 });
    for (const bytes of [0, -5, 1.5, '10']) expect(usage.safeParse({ esim: esim.id, bytes }).success).toBe(false);
  });

  it('the replay body is optional and strict', () => {
    const replay = contract.events.replayEvents.body;
    expect(replay.parse(undefined)).toBeUndefined();
    expect(replay.parse({ since: NOW })).toEqual({ since: NOW });
    expect(replay.safeParse({ since: NOW, all: true }).success).toBe(false);
  });

  it('Idempotency-Key is 8 to 128 characters', () => {
    const headers = contract.esim.createEsim.headers;
    expect(headers.safeParse({ 'idempotency-key': 'a'.repeat(8) }).success).toBe(true);
    expect(headers.safeParse({ 'idempotency-key': 'a'.repeat(128) }).success).toBe(true);
    expect(headers.safeParse({ 'idempotency-key': 'a'.repeat(7) }).success).toBe(false);
    expect(headers.safeParse({ 'idempotency-key': 'a'.repeat(129) }).success).toBe(false);
  });
});
