import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../src/index.ts';

// A real HTTP server records what the client sends, so the test checks the wire format.
describe('createClient', () => {
  const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body });
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [], has_more: false, next_cursor: null }));
    });
  });
  let baseUrl = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('sends the bearer key, the version and the query of a typed call', async () => {
    const client = createClient({ apiKey: 'sk_test_abc', baseUrl, serviceVersion: '2026-09-01' });
    const response = await client.esim.listEsims({ query: { limit: 5 } });
    expect(response.status).toBe(200);
    const request = seen.at(-1);
    expect(request?.method).toBe('GET');
    expect(request?.url).toBe('/v1/esim?limit=5');
    expect(request?.headers.authorization).toBe('Bearer sk_test_abc');
    expect(request?.headers['service-version']).toBe('2026-09-01');
  });

  test('sends the Idempotency-Key and JSON body of a mutating call', async () => {
    const client = createClient({ apiKey: 'sk_test_abc', baseUrl });
    await client.esim.createEsim({ headers: { 'idempotency-key': 'order-0001' }, body: { bundle: 'esim_5GB_30D_EU', quantity: 2 } });
    const request = seen.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/v1/esim');
    expect(request?.headers['idempotency-key']).toBe('order-0001');
    expect(JSON.parse(request?.body ?? '{}')).toEqual({ bundle: 'esim_5GB_30D_EU', quantity: 2 });
  });
});
