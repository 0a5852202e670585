import { initClient } from '@ts-rest/core';
import type { ApiFetcherArgs } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { contract, INTERNAL_HEADERS, internalContract } from '../src/index.ts';
import type { InternalBundle } from '../src/index.ts';
import { bundle, esim } from './fixtures.ts';

// Typed ts-rest clients over the contracts, with a recording fetcher in place of the network.
function recorder(status: number, body: unknown) {
  const calls: ApiFetcherArgs[] = [];
  const api = (args: ApiFetcherArgs) => {
    calls.push(args);
    return Promise.resolve({ status, body, headers: new Headers() });
  };
  return { calls, api };
}

const identity = {
  [INTERNAL_HEADERS.accountId]: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz',
  [INTERNAL_HEADERS.environment]: 'test',
  [INTERNAL_HEADERS.requestId]: 'req_01jd8x7k2m9q4r5s6t7v8w9xyz',
  [INTERNAL_HEADERS.token]: 'internal-secret',
} as const;

describe('typed clients', () => {
  it('call the public API with query values as strings and the idempotency header', async () => {
    const { calls, api } = recorder(201, null);
    const client = initClient(contract, { baseUrl: 'https://api.example.test', baseHeaders: {}, api });
    await client.esim.listEsims({ query: { limit: 5 } });
    await client.esim.createEsim({ body: { bundle: 'esim_5GB_30D_EU', quantity: 2 }, headers: { 'idempotency-key': 'order-000001' } });
    expect(calls[0]).toMatchObject({ method: 'GET', path: 'https://api.example.test/v1/esim?limit=5' });
    expect(calls[1]).toMatchObject({ method: 'POST', path: 'https://api.example.test/v1/esim' });
    expect(calls[1]?.headers['idempotency-key']).toBe('order-000001');
  });

  it('call catalogue internally by bundle name, with the identity headers', async () => {
    const internalBundle: InternalBundle = { ...bundle, retired: false, environments: ['test'], install_window_days: null, data_limit_bytes: 5_000_000_000 };
    const { calls, api } = recorder(200, internalBundle);
    const client = initClient(internalContract.catalogue, { baseUrl: 'http://catalogue', baseHeaders: identity, api, validateResponse: true });
    const response = await client.getBundle({ params: { name: bundle.name } });
    expect(response.status).toBe(200);
    if (response.status === 200) expect(response.body.retired).toBe(false);
    expect(calls[0]?.path).toBe(`http://catalogue/internal/bundles/${bundle.name}`);
    expect(calls[0]?.headers).toMatchObject(identity);
  });

  it('call inventory internally to record usage', async () => {
    const { calls, api } = recorder(200, esim);
    const client = initClient(internalContract.inventory, { baseUrl: 'http://inventory', baseHeaders: identity, api, validateResponse: true });
    const response = await client.recordUsage({ params: { id: esim.id }, body: { bytes: 1000 } });
    expect(response.body).toEqual(esim);
    expect(calls[0]).toMatchObject({ method: 'POST', path: `http://inventory/internal/esims/${esim.id}/usage`, rawBody: { bytes: 1000 } });
  });
});
