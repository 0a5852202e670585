import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { DnsServer } from './support/dns-server.ts';
import { Harness, caller, eventually, newAccount, type Caller } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

/**
 * The tenants' hosts are resolved by the service's own resolver (c-ares, WEBHOOK_DNS_SERVERS,
 * WEBHOOK_DNS_TIMEOUT_MS), not by the HTTP client's getaddrinfo: here it asks a DNS server of the
 * test's, which answers some names, refuses others and never answers the rest.
 */
let dns: DnsServer;
let receiver: Receiver;
let port = 0;
beforeAll(async () => {
  [dns, receiver] = await Promise.all([DnsServer.start(), Receiver.start()]);
  port = Number(new URL(receiver.url('/')).port);
  dns.set('ok.example.test', ['127.0.0.1']);
  dns.set('rebind.example.test', ['93.184.216.34']);
  for (let i = 0; i < 8; i += 1) dns.set(`stalled-${i}.example.test`, 'silent');
});
afterAll(async () => {
  await Promise.all([dns?.close(), receiver?.close()]);
});

async function harness(env: Record<string, string>): Promise<Harness> {
  const h = await Harness.create({ WEBHOOK_DNS_SERVERS: dns.address, DELIVERY_LEASE_MS: '20000', WEBHOOK_RETRY_SCHEDULE_MS: '600000', ...env });
  await h.start({}, { realDns: true });
  return h;
}

async function attempts(h: Harness, who: Caller, endpointId: string) {
  return eventually(
    async () => {
      const list = (await h.get(who, `/v1/webhooks/${endpointId}/deliveries`)).body.data as { status: string; error: string | null; duration_ms: number }[];
      return list.length > 0 && list;
    },
    15_000,
    'an attempt',
  );
}

describe('webhook DNS, test endpoints that may reach private addresses', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ WEBHOOK_DNS_TIMEOUT_MS: '3000' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a name is resolved by the configured DNS server and delivered to the address it gave', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, `http://ok.example.test:${port}/named`);
    receiver.secret('/named', endpoint.secret);
    const event = await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
    await eventually(() => receiver.hits('/named').some((hit) => hit.id === event.id), 10_000, 'the delivery');
    expect(dns.questions).toContain('ok.example.test');
  });

  it('names whose DNS never answers do not hold up the lookups of others, and fail within WEBHOOK_DNS_TIMEOUT_MS', async () => {
    const stalled = caller(newAccount(), 'test');
    const endpoints = [];
    for (let i = 0; i < 8; i += 1) endpoints.push(await h.endpoint(stalled, `http://stalled-${i}.example.test:${port}/stalled`));
    await h.publish(stalled, 'esim.released', { object: esim('released'), previous_state: null });
    await eventually(() => dns.questions.filter((name) => name.startsWith('stalled-')).length >= 8, 10_000, 'the eight lookups under way');

    const other = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(other, `http://ok.example.test:${port}/meanwhile`);
    receiver.secret('/meanwhile', endpoint.secret);
    const started = Date.now();
    const event = await h.publish(other, 'esim.released', { object: esim('released'), previous_state: null });
    await eventually(() => receiver.hits('/meanwhile').some((hit) => hit.id === event.id), 10_000, 'the other delivery');
    // The stalled lookups have 3 s; this one did not wait for them.
    expect(Date.now() - started).toBeLessThan(2_500);

    const [attempt] = await attempts(h, stalled, endpoints[0]!.id);
    expect(attempt).toMatchObject({ status: 'failed', error: 'connection_error' });
    // It waited for an answer (no refusal came), and no longer than its limit allows.
    expect(attempt!.duration_ms).toBeGreaterThanOrEqual(1_500);
    expect(attempt!.duration_ms).toBeLessThan(4_500);
  });
});

describe('webhook DNS under the address policy (WEBHOOK_ALLOW_PRIVATE off)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness({ WEBHOOK_ALLOW_PRIVATE: '0', WEBHOOK_DNS_TIMEOUT_MS: '300' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('checks the addresses our resolver finds at each delivery: a name re-pointed at loopback is refused', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, `http://rebind.example.test:${port}/rebound`);
    receiver.secret('/rebound', endpoint.secret);
    dns.set('rebind.example.test', ['127.0.0.1']);
    await h.publish(me, 'esim.released', { object: esim('released'), previous_state: null });
    const [attempt] = await attempts(h, me, endpoint.id);
    expect(attempt).toMatchObject({ status: 'failed', error: 'connection_error' });
    expect(receiver.hits('/rebound')).toHaveLength(0);
  });

  it('a name whose DNS server never answers is refused at creation after WEBHOOK_DNS_TIMEOUT_MS, naming nothing', async () => {
    const started = Date.now();
    const res = await h.post(caller(newAccount(), 'test'), '/v1/webhooks', { url: 'http://stalled-0.example.test/hook', enabled_events: ['*'] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('WEBHOOK_DNS_SERVERS', () => {
  it('takes IP addresses with optional ports, and refuses anything else at start', async () => {
    const { loadConfig } = await import('../src/config.ts');
    const { ConfigError } = await import('@connectivity/platform');
    const base = { CURSOR_SECRET: 'x'.repeat(32) };
    expect(loadConfig(base).WEBHOOK_DNS_SERVERS).toEqual([]);
    expect(loadConfig({ ...base, WEBHOOK_DNS_SERVERS: '10.0.0.2, 127.0.0.1:5353,[2606:4700::1111]:53' }).WEBHOOK_DNS_SERVERS).toEqual([
      '10.0.0.2',
      '127.0.0.1:5353',
      '[2606:4700::1111]:53',
    ]);
    for (const bad of ['dns.example.com', '10.0.0.2:99999', '10.0.0.2:53:1']) {
      expect(() => loadConfig({ ...base, WEBHOOK_DNS_SERVERS: bad }), bad).toThrow(ConfigError);
    }
  });
});
