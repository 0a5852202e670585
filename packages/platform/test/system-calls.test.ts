import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, internalSupplierCallbacksContract } from '@connectivity/contracts';
import { createExpressEndpoints, initServer } from '@ts-rest/express';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createInternalClient, createLogger, createServiceApp, systemRouteOptions } from '../src/index.ts';

const TOKEN = 'a-token-of-enough-length';
const seen: Record<string, string | undefined>[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  const s = initServer();
  const app = createServiceApp({
    logger: createLogger({ name: 'system-calls-test', level: 'silent' }),
    baseUrl: 'http://localhost',
    internalToken: TOKEN,
    checks: {},
    routes: (express) =>
      createExpressEndpoints(
        internalSupplierCallbacksContract,
        s.router(internalSupplierCallbacksContract, {
          receiveSupplierCallback: ({ params, body, headers, res }) => {
            seen.push({
              vendor: params.vendor,
              caller: res.locals.caller === undefined ? undefined : 'present',
              requestId: headers['x-request-id'],
              bytes: body.body_base64,
            });
            return Promise.resolve({ status: 200 as const, body: { received: 0, stored: 0 } });
          },
        }),
        express,
        systemRouteOptions,
      ),
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const client = (token = TOKEN) => createInternalClient({ service: 'catalogue', baseUrl, internalToken: token, timeoutMs: 2_000 });
const input = { params: { vendor: 'esim-go' as const }, body: { body_base64: Buffer.from('{}').toString('base64'), headers: { 'x-signature-sha256': 'ab' } } };

describe('a call made for no account (system headers)', () => {
  test('is served with the token and a request id alone, and reaches the route without a caller', async () => {
    const answer = await client().call(internalSupplierCallbacksContract.receiveSupplierCallback, input);
    expect(answer).toEqual({ received: 0, stored: 0 });
    expect(seen.at(-1)).toMatchObject({ vendor: 'esim-go', caller: undefined, bytes: input.body.body_base64 });
    expect(seen.at(-1)?.requestId).toMatch(/^req_/);
  });

  test('a call that carries an account does not reach it: 404 no_such_route', async () => {
    const before = seen.length;
    const call = client().call(internalSupplierCallbacksContract.receiveSupplierCallback, {
      ...input,
      caller: { accountId: 'acct_01jd8x7k2m9q4r5s6t7v8w9xyz', environment: 'live' },
    });
    await expect(call).rejects.toMatchObject({ code: 'no_such_route' });
    await expect(call).rejects.toBeInstanceOf(ApiError);
    expect(seen.length).toBe(before);
  });

  test('a call without the internal token is refused 401 key_invalid', async () => {
    await expect(client('another-token-of-enough-len').call(internalSupplierCallbacksContract.receiveSupplierCallback, input)).rejects.toMatchObject({
      code: 'key_invalid',
    });
  });
});
