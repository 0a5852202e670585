import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@connectivity/platform';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

/**
 * WEBHOOK_ALLOW_PRIVATE: off (the default of every deployment but `pnpm start`), test endpoints
 * obey the live address policy at creation and at each delivery, http still allowed; on, they may
 * reach loopback and private addresses. Either way a refusal never tells what a name resolved to.
 */
let off: Harness;
let on: Harness;
let receiver: Receiver;
let receiverPort = 0;

const PRIVATE_ANSWERS = ['10.1.2.3', '93.184.216.34', '169.254.169.254', '127.0.0.1'];

beforeAll(async () => {
  [off, on, receiver] = await Promise.all([Harness.create({ WEBHOOK_ALLOW_PRIVATE: '0' }), Harness.create({ WEBHOOK_TIMEOUT_MS: '500' }), Receiver.start()]);
  await Promise.all([off.start(), on.start()]);
  receiverPort = Number(new URL(receiver.url('/')).port);
  for (const h of [off, on]) {
    h.dns.set('hooks.example.com', ['93.184.216.34']);
    h.dns.set('private.example.com', ['10.1.2.3']);
    h.dns.set('mixed.example.com', ['93.184.216.34', '169.254.169.254']);
    h.dns.set('loopback.example.com', ['127.0.0.1']);
  }
});
afterAll(async () => {
  await Promise.all([off?.close(), on?.close(), receiver?.close()]);
});

const hostileUrls = () => [
  `http://127.0.0.1:${receiverPort}/hook`,
  'http://169.254.169.254/latest/meta-data',
  'http://[::127.0.0.1]/',
  'http://[::ffff:0:7f00:1]/',
  'http://[2002:7f00:1::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://localhost:3000/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://private.example.com/hook',
  'http://mixed.example.com/hook',
  `http://loopback.example.com:${receiverPort}/hook`,
  'http://nowhere.example.com/hook',
];

describe('WEBHOOK_ALLOW_PRIVATE', () => {
  it('is off unless set, and a value that is not a plain switch stops the start', () => {
    expect(loadConfig({ CURSOR_SECRET: 'x'.repeat(32) }).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(loadConfig({ CURSOR_SECRET: 'x'.repeat(32), WEBHOOK_ALLOW_PRIVATE: 'TRUE' }).WEBHOOK_ALLOW_PRIVATE).toBe(true);
    expect(loadConfig({ CURSOR_SECRET: 'x'.repeat(32), WEBHOOK_ALLOW_PRIVATE: '0' }).WEBHOOK_ALLOW_PRIVATE).toBe(false);
    expect(() => loadConfig({ CURSOR_SECRET: 'x'.repeat(32), WEBHOOK_ALLOW_PRIVATE: 'sometimes' })).toThrow(ConfigError);
  });

  it('off: a test endpoint at a loopback, private, link-local, metadata or IPv6-embedded address is refused, with one message that names no address', async () => {
    const me = caller(newAccount(), 'test');
    const messages = new Set<string>();
    for (const url of hostileUrls()) {
      const res = await off.post(me, '/v1/webhooks', { url, enabled_events: ['*'] });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatchObject({ code: 'invalid_parameter', param: 'url' });
      expect(res.body.error).not.toHaveProperty('detail');
      for (const address of PRIVATE_ANSWERS) expect(JSON.stringify(res.body), url).not.toContain(address);
      messages.add(res.body.error.message as string);
    }
    // A name that resolves to a private address and one that does not resolve cannot be told apart.
    expect([...messages]).toHaveLength(1);
    // The same on a change of URL.
    const { id } = await off.endpoint(me, 'http://hooks.example.com/fine');
    const patched = await off.patch(me, `/v1/webhooks/${id}`, { url: 'http://private.example.com/x' });
    expect(patched.status).toBe(400);
    expect(patched.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url', message: [...messages][0] });
    expect((await off.get(me, '/v1/webhooks')).body.data).toHaveLength(1);
  });

  it('off: a test endpoint may still use http to a public host; live endpoints still need https', async () => {
    const res = await off.post(caller(newAccount(), 'test'), '/v1/webhooks', { url: 'http://hooks.example.com/x', enabled_events: ['*'] });
    expect(res.status).toBe(201);
    const live = await off.post(caller(newAccount(), 'live'), '/v1/webhooks', { url: 'http://hooks.example.com/x', enabled_events: ['*'] });
    expect(live.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
  });

  it('off: a test delivery is refused when the name resolves to a private address at delivery time, and the attempt says only its class', async () => {
    const me = caller(newAccount(), 'test');
    off.dns.set('rebind.example.com', ['93.184.216.34']);
    const endpoint = await off.endpoint(me, `http://rebind.example.com:${receiverPort}/rebind`);
    receiver.secret('/rebind', endpoint.secret);
    // The name now points at the receiver on loopback: were it not checked again, the receiver would get the event.
    off.dns.set('rebind.example.com', ['127.0.0.1']);
    await off.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    const [attempt] = await eventually(async () => {
      const list = (await off.get(me, `/v1/webhooks/${endpoint.id}/deliveries`)).body.data as Record<string, unknown>[];
      return list.length > 0 && list;
    });
    expect(attempt).toMatchObject({ status: 'failed', status_code: null, error: 'connection_error' });
    expect(receiver.hits('/rebind')).toHaveLength(0);
  });

  it('on: the same test endpoints are accepted, and one on loopback is delivered to', async () => {
    const me = caller(newAccount(), 'test');
    for (const url of hostileUrls()) {
      const res = await on.post(me, '/v1/webhooks', { url, enabled_events: ['esim.expired'] });
      expect(res.status, `${url}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    const local = caller(newAccount(), 'test');
    const endpoint = await on.endpoint(local, receiver.url('/allowed'));
    receiver.secret('/allowed', endpoint.secret);
    const event = await on.publish(local, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await eventually(() => receiver.hits('/allowed').some((hit) => hit.id === event.id), 10_000, 'the delivery');
    // Live endpoints obey the policy whatever the setting.
    const live = await on.post(caller(newAccount(), 'live'), '/v1/webhooks', { url: 'https://private.example.com/x', enabled_events: ['*'] });
    expect(live.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
  });
});

describe('delivery errors', () => {
  /** A server on loopback that treats each request with `handle`; closed after the test. */
  async function server(handle: http.RequestListener): Promise<{ port: number; close(): Promise<void> }> {
    const s = http.createServer(handle);
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    return {
      port: (s.address() as AddressInfo).port,
      close: () => {
        s.closeAllConnections();
        return new Promise<void>((resolve) => s.close(() => resolve()));
      },
    };
  }

  const firstAttempt = async (who: ReturnType<typeof caller>, endpointId: string) => {
    const [attempt] = await eventually(async () => {
      const list = ((await on.get(who, `/v1/webhooks/${endpointId}/deliveries?limit=100`)).body.data as Record<string, unknown>[]).reverse();
      return list.length > 0 && list;
    });
    return attempt;
  };

  it('are shown to the tenant as a class: refused, timeout, TLS, HTTP status, reset, never raw text', async () => {
    const closed = await server(() => undefined);
    await closed.close();
    const silent = await server(() => undefined);
    const reset = await server((req) => req.socket.destroy());
    const redirect = await server((_req, res) => res.writeHead(302, { location: receiver.url('/redirected') }).end());
    try {
      const me = caller(newAccount(), 'test');
      const cases: [string, string, number | null][] = [
        [`http://127.0.0.1:${closed.port}/`, 'connection_refused', null],
        [`http://127.0.0.1:${silent.port}/`, 'timeout', null],
        // A TLS handshake with a server that speaks plain HTTP.
        [`https://127.0.0.1:${silent.port}/tls`, 'tls_error', null],
        [`http://127.0.0.1:${reset.port}/`, 'connection_error', null],
        // Redirects are not followed: the answer is the 302.
        [`http://127.0.0.1:${redirect.port}/`, 'http_status', 302],
      ];
      const endpoints = [];
      for (const [url] of cases) endpoints.push(await on.endpoint(me, url));
      await on.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
      for (const [index, [url, error, statusCode]] of cases.entries()) {
        const attempt = await firstAttempt(me, endpoints[index]!.id);
        expect(attempt, url).toMatchObject({ status: 'failed', error, status_code: statusCode });
      }
      expect(receiver.hits('/redirected')).toHaveLength(0);
    } finally {
      await Promise.all([silent.close(), reset.close(), redirect.close()]);
    }
  });

  it('raw texts stored before are migrated to their class', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await on.endpoint(me, receiver.url('/migrated'));
    receiver.secret('/migrated', endpoint.secret);
    await on.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
    await firstAttempt(me, endpoint.id);
    const { up, down } = await import('../src/db/migrations/0007_attempt_error_classes.ts');
    const knex = on.db.knex;
    await down(knex);
    const texts = [
      ['Connection refused.', 'connection_refused'],
      ['No answer within 15000 ms.', 'timeout'],
      ['The endpoint answered HTTP 503.', 'http_status'],
      ['Network error ERR_TLS_CERT_ALTNAME_INVALID.', 'tls_error'],
      ['Refused: vm resolves to 127.0.0.1, which is not a public address.', 'connection_error'],
      ['Connection reset by the endpoint.', 'connection_error'],
      ['The signing secret could not be read; the attempt was not sent.', 'not_sent'],
    ];
    const template = await knex('notifications.attempts').where({ endpoint_id: endpoint.id }).first();
    const ids: string[] = [];
    for (const [index, [text]] of texts.entries()) {
      const id = `${template.id}x${index}`;
      ids.push(id);
      await knex('notifications.attempts').insert({ ...template, id, attempt: 100 + index, status: 'failed', error: text });
    }
    await up(knex);
    const migrated = await knex('notifications.attempts').whereIn('id', ids).orderBy('attempt');
    expect(migrated.map((row: { error: string }) => row.error)).toEqual(texts.map(([, error]) => error));
    await expect(knex('notifications.attempts').where({ id: ids[0] }).update({ error: 'Connection refused.' })).rejects.toThrow();
  });
});
