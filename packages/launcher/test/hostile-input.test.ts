import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack, type Reply } from '../src/local-stack.ts';

/**
 * What an attacker or a careless client sends, through the public gateway to the real services:
 * values that try to steer internal calls, text PostgreSQL refuses, and bytes Node's HTTP parser
 * refuses. Every answer is the spec's error object; no internal route is reached or named.
 */
describe('hostile input through the gateway', () => {
  let stack: LocalStack;
  let testKey = '';
  let otherAccount = '';
  let orderId = '';
  let esimId = '';

  const api = (method: string, path: string, body?: unknown) => stack.call(testKey, method, path, body);
  const expectError = (reply: Reply, status: number, code: string, param?: string) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(status);
    expect(reply.body.error?.code, JSON.stringify(reply.body)).toBe(code);
    if (param !== undefined) expect(reply.body.error?.param).toBe(param);
    // No internal route is named (as a `No route` message once did), no stack trace.
    expect(JSON.stringify(reply.body)).not.toMatch(/No route [A-Z]+ \/internal|\/internal\/bundles\/|at .*\.ts:\d|node:internal/);
    expect(reply.headers.get('request-id')).toMatch(/^req_/);
  };

  beforeAll(async () => {
    stack = await startLocalStack();
    const mine = await createAccount(stack.db.knex);
    testKey = mine.test.secret;
    otherAccount = (await createAccount(stack.db.knex)).account.id;
    const order = await api('POST', '/v1/esim', { bundle: 'esim_5GB_30D_EU', quantity: 1 });
    expect(order.status).toBe(201);
    orderId = String(order.body.id);
    esimId = String((order.body.esims as { id: string }[])[0]?.id);
  }, 180_000);

  afterAll(async () => {
    await stack?.close();
  });

  const orders = async () => Number((await stack.db.knex('inventory.orders').count<{ count: string }[]>('* as count'))[0]?.count);

  test('a bundle name cannot steer inventory’s call to catalogue', async () => {
    const before = await orders();
    for (const bundle of [
      `../accounts/${otherAccount}/live-ordering?`,
      'a/b',
      'esim_5GB_30D_EU/../esim_5GB_30D_EU',
      '%',
      '%2e%2e',
      'esim_5GB_30D_EU#x',
      'esim_5GB_30D_EU?x=1',
      '..',
    ]) {
      expectError(await api('POST', '/v1/esim', { bundle, quantity: 1 }), 400, 'invalid_parameter', 'bundle');
    }
    expect(await orders()).toBe(before);
  });

  test('an eSIM reference cannot steer the simulator’s call to inventory (the operator routes stay out of reach)', async () => {
    for (const esim of [
      `../supplier-releases/${orderId}/retry?`,
      `../../supplier-releases?`,
      `${esimId}/../../supplier-releases`,
      `${esimId}%2F..`,
      '%',
      '..',
      `${esimId}#`,
      `${esimId}?bytes=1`,
    ]) {
      expectError(await api('POST', '/v1/test/usage', { esim, bytes: 1 }), 404, 'resource_not_found', 'esim');
    }
    const esim = await api('GET', `/v1/esim/${esimId}`);
    expect(esim.body.data_used_bytes).toBe(0);
  });

  test('path parameters are forwarded encoded: traversal in an id names no other route', async () => {
    // node:http sends the path as written (fetch would resolve `%2e%2e` itself before sending).
    const rawGet = (path: string) =>
      new Promise<Reply>((resolve, reject) => {
        const { hostname, port } = new URL(stack.composition.gatewayUrl);
        const req = httpRequest({ hostname, port, path, headers: { authorization: `Bearer ${testKey}` } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Reply['body'], headers });
          });
        });
        req.on('error', reject);
        req.end();
      });
    for (const path of [
      `/v1/esim/..%2F..%2Finternal%2Fsupplier-releases`,
      `/v1/esim/%2e%2e`,
      `/v1/esim/%2E%2e%2Finternal`,
      `/v1/webhooks/%2e%2e/deliveries`,
      `/v1/webhooks/..%2F..%2Finternal%2Faccounts%2F${otherAccount}`,
    ]) {
      expectError(await rawGet(path), 404, 'resource_not_found', 'id');
    }
  });

  test('NUL and other text PostgreSQL refuses is 400 invalid_parameter (or 404 for an id), never 500', async () => {
    const endpoint = await api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] });
    expect(endpoint.status).toBe(201);
    const endpointId = String(endpoint.body.id);
    expectError(await api('GET', '/v1/esim/%00'), 404, 'resource_not_found');
    expectError(await api('GET', '/v1/webhooks/%00'), 404, 'resource_not_found');
    expectError(await api('GET', '/v1/webhooks/%00/deliveries'), 404, 'resource_not_found');
    expectError(await api('PATCH', '/v1/esim/esim_%00abc', { state: 'installed' }), 404, 'resource_not_found');
    expectError(await api('POST', '/v1/events/replay', { event: '\u0000' }), 400, 'invalid_parameter', 'event');
    expectError(await api('PATCH', `/v1/webhooks/${endpointId}`, { description: 'x\u0000y' }), 400, 'invalid_parameter', 'description');
    expectError(await api('POST', '/v1/esim', { bundle: 'x\u0000y' }), 400, 'invalid_parameter', 'bundle');
    expectError(await api('PATCH', `/v1/webhooks/${endpointId}`, { description: 'lone \ud800 surrogate' }), 400, 'invalid_parameter', 'description');
    expectError(await api('GET', '/v1/events?cursor=%00'), 400, 'invalid_parameter', 'cursor');
  });

  test('requests Node’s HTTP parser refuses get the error object and a Request-Id', async () => {
    const { port } = new URL(stack.composition.gatewayUrl);
    const raw = (payload: Buffer | string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
        socket.on('end', () => resolve(answer));
        socket.on('error', reject);
        socket.end(payload);
      });
    const cases = [
      'GARBAGE\r\n\r\n',
      Buffer.concat([Buffer.from('GET /v1/esim/'), Buffer.from([0xc3, 0xa9, 0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]),
      `GET /v1/esim HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'GET /v1/esim HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
    ];
    for (const payload of cases) {
      const answer = await raw(payload);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/\r\nRequest-Id: req_[0-9a-z]{26}\r\n/i);
      const parsed = JSON.parse(body) as { error: { code: string; link: string } };
      expect(parsed.error.code).toBe('invalid_parameter');
      expect(parsed.error.link).toMatch(/\/v1\/errors\/invalid_parameter$/);
    }
  });

  test('a chunked body over 1 MiB is 400 invalid_parameter `body` as the error object; an abandoned upload closes cleanly', async () => {
    const { port } = new URL(stack.composition.gatewayUrl);
    const exchange = (write: (socket: ReturnType<typeof connect>) => void) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString('latin1');
          const [head = '', body = ''] = answer.split('\r\n\r\n');
          const length = /content-length: (\d+)/i.exec(head);
          if (length && Buffer.byteLength(body, 'latin1') >= Number(length[1])) socket.destroy();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(answer));
        socket.on('connect', () => write(socket));
      });
    const head = `POST /v1/esim HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${testKey}\r\nIdempotency-Key: chunked-${Date.now()}\r\nContent-Type: application/json\r\n`;

    const answer = await exchange((socket) => {
      socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n`);
      const chunk = 'x'.repeat(64 * 1024);
      for (let i = 0; i < 32; i += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      socket.write('0\r\n\r\n');
    });
    const [answerHead = '', body = ''] = answer.split('\r\n\r\n');
    expect(answerHead).toMatch(/^HTTP\/1\.1 400 /);
    expect(answerHead).toMatch(/\r\nContent-Type: application\/json/i);
    expect(JSON.parse(body)).toMatchObject({ error: { code: 'invalid_parameter', param: 'body' } });

    const before = await orders();
    const abandoned = await exchange((socket) => {
      socket.write(`${head}Content-Length: 500000\r\n\r\n{"bundle":"esim_5GB_30D_EU","quantity":1,"x":"`);
      setTimeout(() => socket.destroy(), 50);
    });
    expect(abandoned).toBe('');
    expect(await orders()).toBe(before);
    expect((await api('GET', `/v1/esim/${esimId}`)).status).toBe(200);
  });

  test('a path that is not valid percent-encoding is the error object, never a 500: no route with a key, key_missing as a person without one', async () => {
    // As the gateway's error-pages test and its record say: a code that does not decode names no
    // error page, so it goes on to the edge like any other path.
    for (const path of ['/v1/errors/%', '/v1/errors/%zz', '/v1/errors/%E0%A4%A']) {
      const keyed = await api('GET', path);
      expectError(keyed, 404, 'no_such_route');
      const person = await fetch(`${stack.composition.gatewayUrl}${path}`, { headers: { accept: 'text/html' } });
      expect(person.status, path).toBe(401);
      expect(((await person.json()) as { error: { code: string } }).error.code).toBe('key_missing');
    }
  });
});
