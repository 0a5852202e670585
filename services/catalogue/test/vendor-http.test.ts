import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SupplierError } from '../src/clients/suppliers/port.ts';
import { createVendorHttp } from '../src/clients/suppliers/vendor-http.ts';

/**
 * A vendor's 429 is waited out (record 0279) for at least a second, whatever its `Retry-After`
 * says: a vendor answering `Retry-After: 0` (allowed by RFC 9110, sent by no fake) must not turn a
 * purchase into a tight loop of requests.
 */
describe('the vendor HTTP path under a 429 with Retry-After: 0', () => {
  let server: Server;
  let base = '';
  const arrivals: number[] = [];
  /** How many of the next requests are refused. */
  let refuse = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      arrivals.push(Date.now());
      if (refuse > 0) {
        refuse -= 1;
        res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json' }).end('{"message":"slow down"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const vendorHttp = (timeoutMs: number) =>
    createVendorHttp(
      {
        vendor: 'esim-go',
        baseUrl: base,
        timeoutMs,
        retries: 0,
        breakerThreshold: 100,
        breakerCooldownMs: 1_000,
        logger: createLogger({ name: 'test', level: 'silent' }),
      },
      (status, _body, what) => new SupplierError('refused', `${what} answered ${status}`, { status }),
    );
  const purchase = { operation: 'place_order', method: 'POST' as const, path: '/orders', json: { item: 'x' }, idempotent: false };

  it('sends a purchase again a second later, not at once, and buys once', async () => {
    arrivals.length = 0;
    refuse = 1;
    const answer = await vendorHttp(3_000).request(purchase);
    expect(answer.status).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect((arrivals[1] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(990);
  });

  it('a vendor that keeps refusing with 0 gets one request a second until the call’s time is up, then fails as unavailable (the caller’s 503)', async () => {
    arrivals.length = 0;
    refuse = 1_000;
    const failed = await vendorHttp(2_500)
      .request(purchase)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    refuse = 0;
    expect(failed).toBeInstanceOf(SupplierError);
    expect((failed as SupplierError).failure).toBe('unavailable');
    expect((failed as SupplierError).status).toBe(429);
    // At 0, 1 and 2 s: a third wait would end past the 2.5 s deadline.
    expect(arrivals.length).toBeGreaterThanOrEqual(2);
    expect(arrivals.length).toBeLessThanOrEqual(3);
  });
});
