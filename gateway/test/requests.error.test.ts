import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from './support/common-route-tests.ts';
import { bearer, freePort, idem, startHarness, type Harness } from './support/harness.ts';

let h: Harness;
let a: Awaited<ReturnType<Harness['account']>>;
beforeAll(async () => {
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
  a = await h.account();
});
const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) server.close();
  await h?.close();
});

/** The app on a real port, for requests supertest cannot make (hand-written chunked bodies). */
async function listening(app: Harness['app']): Promise<AddressInfo> {
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return server.address() as AddressInfo;
}

/** Writes a request by hand; resolves with the answer's head and body once the server ends or closes. */
function rawExchange(address: AddressInfo, write: (socket: Socket) => void): Promise<{ head: string; body: string }> {
  return new Promise((resolve) => {
    const socket = connect(address.port, address.address);
    const received: Buffer[] = [];
    socket.on('data', (data: Buffer) => {
      received.push(data);
      // Done once a whole answer with a Content-Length is in.
      const text = Buffer.concat(received).toString();
      const split = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text.slice(0, split));
      if (split !== -1 && length && Buffer.byteLength(text.slice(split + 4)) >= Number(length[1])) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const text = Buffer.concat(received).toString();
      const split = text.indexOf('\r\n\r\n');
      resolve(split === -1 ? { head: text, body: '' } : { head: text.slice(0, split), body: text.slice(split + 4) });
    });
    socket.on('connect', () => write(socket));
  });
}

const post = (path: string) => request(h.app).post(path).set(bearer(a.test)).set('Idempotency-Key', idem());

describe('the body', () => {
  it('a body that is not JSON: 400 body_not_json', async () => {
    expectError(await post('/v1/esim').set('Content-Type', 'application/json').send('{"bundle": '), 400, 'body_not_json');
  });

  it('JSON that is not an object: 400 body_not_json', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      expectError(await post('/v1/esim').set('Content-Type', 'application/json').send(body), 400, 'body_not_json');
    }
  });

  it('a body over 1 MiB: 400 invalid_parameter, param body', async () => {
    const big = JSON.stringify({ bundle: 'x'.repeat(1024 * 1024) });
    expectError(await post('/v1/esim').set('Content-Type', 'application/json').send(big), 400, 'invalid_parameter', 'body');
  });

  it('a chunked body over 1 MiB (no Content-Length): 400 invalid_parameter, param body, as JSON', async () => {
    const address = await listening(h.app);
    const answer = await rawExchange(address, (socket) => {
      socket.write(`POST /v1/esim HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.test}\r\nIdempotency-Key: ${idem()}\r\n`);
      socket.write('Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // 2 MiB in 64 KiB chunks.
      for (let i = 0; i < 32; i += 1) socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`);
      socket.write('0\r\n\r\n');
    });
    expect(answer.head).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer.head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'invalid_parameter', param: 'body' } });
  });

  it('an upload the client abandons part-way: the socket is closed, no error page, the app keeps serving', async () => {
    const address = await listening(h.app);
    const answer = await rawExchange(address, (socket) => {
      socket.write(`POST /v1/esim HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${a.test}\r\nIdempotency-Key: ${idem()}\r\n`);
      socket.write('Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"bundle":"');
      setTimeout(() => socket.destroy(), 50);
    });
    expect(answer.head).toBe('');
    expectError(await post('/v1/esim').set('Content-Type', 'application/json').send('{"bundle": '), 400, 'body_not_json');
  });

  it('a body just under 1 MiB is read (and then validated)', async () => {
    const body = JSON.stringify({ bundle: 'x'.repeat(1024 * 1024 - 100) });
    expectError(await post('/v1/esim').set('Content-Type', 'application/json').send(body), 400, 'invalid_parameter', 'bundle');
  });
});

describe('Idempotency-Key', () => {
  it('absent on a mutating route: 400 idempotency_key_required', async () => {
    const res = await request(h.app).post('/v1/esim').set(bearer(a.test)).send({ bundle: 'b' });
    expectError(res, 400, 'idempotency_key_required');
  });

  it('shorter than 8 or longer than 128: 400 invalid_parameter, param Idempotency-Key', async () => {
    for (const key of ['short', 'k'.repeat(129)]) {
      const res = await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', key).send({ bundle: 'b' });
      expectError(res, 400, 'invalid_parameter', 'Idempotency-Key');
    }
  });

  it('8 and 128 characters are accepted', async () => {
    for (const key of [`${Date.now()}`.slice(-8), `${idem()}`.padEnd(128, 'x')]) {
      const res = await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', key).send({ bundle: 'b' });
      expect(res.status).toBe(201);
    }
  });

  it('is not needed on a read', async () => {
    expect((await request(h.app).get('/v1/esim').set(bearer(a.test))).status).toBe(200);
  });

  it('a top-up (POST /v1/esim/{id}/topups) needs one too, and its body is validated before the service is asked', async () => {
    const path = '/v1/esim/esim_01m7q5cqg0m9s346q3d25vt4f5/topups';
    const before = h.upstream.seen.length;
    expectError(await request(h.app).post(path).set(bearer(a.test)).send({ bundle: 'esim_5GB_30D_EU' }), 400, 'idempotency_key_required');
    expectError(await request(h.app).post(path).set(bearer(a.test)).set('Idempotency-Key', idem()).send({}), 400, 'missing_parameter', 'bundle');
    expectError(await request(h.app).post(path).set(bearer(a.test)).set('Idempotency-Key', idem()).send({ bundle: 7 }), 400, 'invalid_parameter', 'bundle');
    expect(h.upstream.seen.length).toBe(before);
  });
});

describe('validation against the contract', () => {
  it('a missing required field: 400 missing_parameter with param', async () => {
    expectError(await post('/v1/esim').send({ quantity: 1 }), 400, 'missing_parameter', 'bundle');
    expectError(await post('/v1/test/usage').send({ esim: 'esim_x' }), 400, 'missing_parameter', 'bytes');
  });

  it('no body where one is required: 400 missing_parameter, param body', async () => {
    expectError(await post('/v1/esim'), 400, 'missing_parameter', 'body');
  });

  it('a wrong type or value: 400 invalid_parameter with param', async () => {
    expectError(await post('/v1/esim').send({ bundle: 'b', quantity: '2' }), 400, 'invalid_parameter', 'quantity');
    expectError(await post('/v1/esim').send({ bundle: 'b', quantity: 11 }), 400, 'invalid_parameter', 'quantity');
    expectError(await post('/v1/test/usage').send({ esim: 'e', bytes: 1.5 }), 400, 'invalid_parameter', 'bytes');
    const patch = await request(h.app).patch('/v1/esim/esim_x').set(bearer(a.test)).set('Idempotency-Key', idem()).send({ state: 'gone' });
    expectError(patch, 400, 'invalid_parameter', 'state');
  });

  it('an unknown body field: 400 invalid_parameter naming it', async () => {
    expectError(await post('/v1/esim').send({ bundle: 'b', colour: 'red' }), 400, 'invalid_parameter', 'colour');
  });

  it('an unknown or invalid query parameter: 400 invalid_parameter naming it', async () => {
    expectError(await request(h.app).get('/v1/esim?colour=red').set(bearer(a.test)), 400, 'invalid_parameter', 'colour');
    expectError(await request(h.app).get('/v1/esim?limit=0').set(bearer(a.test)), 400, 'invalid_parameter', 'limit');
    expectError(await request(h.app).get('/v1/esim?limit=101').set(bearer(a.test)), 400, 'invalid_parameter', 'limit');
    expectError(await request(h.app).get('/v1/esim/bundles?countries=GBR').set(bearer(a.test)), 400, 'invalid_parameter', 'countries');
    expectError(await request(h.app).get('/v1/esim/bundles?region=mars').set(bearer(a.test)), 400, 'invalid_parameter', 'region');
    expectError(await request(h.app).get('/v1/version?x=1').set(bearer(a.test)), 400, 'invalid_parameter', 'x');
  });

  it('valid requests reach the service with path, query and body unchanged', async () => {
    const res = await request(h.app).get('/v1/esim/bundles?countries=gb,FR&region=europe').set(bearer(a.test));
    expect(res.status).toBe(200);
    const seen = h.upstream.seen.at(-1);
    expect(seen?.url).toBe('/v1/esim/bundles?countries=gb,FR&region=europe');
    const key = idem();
    const body = '{"bundle":"esim_5GB_30D_EU",  "quantity":2}';
    await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Idempotency-Key', key).set('Content-Type', 'application/json').send(body).expect(201);
    expect(h.upstream.seen.at(-1)?.body).toBe(body);
  });

  it('the order of checks: body_not_json comes before idempotency_key_required, which comes before validation', async () => {
    const notJson = await request(h.app).post('/v1/esim').set(bearer(a.test)).set('Content-Type', 'application/json').send('nope');
    expectError(notJson, 400, 'body_not_json');
    const noKey = await request(h.app).post('/v1/esim').set(bearer(a.test)).send({ colour: 'red' });
    expectError(noKey, 400, 'idempotency_key_required');
  });

  it('the order of checks: scope (403) comes before the body (400)', async () => {
    const b = await h.account();
    await h.db
      .knex('gateway.api_keys')
      .where({ id: b.testKeyId })
      .update({ scopes: ['esim:read'] });
    const res = await request(h.app).post('/v1/esim').set(bearer(b.test)).set('Content-Type', 'application/json').send('nope');
    expectError(res, 403, 'key_out_of_scope');
  });
});

describe('a service that fails', () => {
  it('a service that answers an error without the error object gives the error object', async () => {
    expectError(await request(h.app).get('/v1/esim/broken').set(bearer(a.test)), 500, 'internal_error');
  });

  it('a service that does not answer in time: 500 internal_error, no hang', async () => {
    const res = await request(h.app).get('/v1/esim/hang').set(bearer(a.test));
    expectError(res, 500, 'internal_error');
    expect(res.body.error.message).toMatch(/in time/);
  });

  it('a service that is down: 500 internal_error with the error object', async () => {
    const port = await freePort();
    const down = await startHarness({ INVENTORY_URL: `http://127.0.0.1:${port}` });
    try {
      const b = await down.account();
      const res = await request(down.app).get('/v1/esim').set(bearer(b.test));
      expectError(res, 500, 'internal_error');
      expect(res.body.error.message).toMatch(/unavailable/);
      expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|at .*\.ts/);
    } finally {
      await down.close();
    }
  });
});
