import { randomBytes } from 'node:crypto';
import { createAccount } from '@connectivity/gateway';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDistributedStack, type DistributedStack } from '../../src/distributed-stack.ts';
import { distributedBackends } from './support.ts';

/**
 * The distributed form as deployed, WEBHOOK_ALLOW_PRIVATE left at its default (off): a test
 * endpoint cannot point at our own network (the gateway's admin listener, the cloud metadata
 * address, IPv4 hidden in IPv6), so deliveries and their attempt list cannot scan it.
 */
describe('test webhooks in the distributed form', () => {
  let stack: DistributedStack;
  let key = '';

  beforeAll(async () => {
    stack = await startDistributedStack({ ...distributedBackends(), stdio: 'ignore' });
    key = (await createAccount(stack.knex)).test.secret;
  }, 180_000);
  afterAll(async () => {
    await stack?.close();
  });

  const create = async (url: string) => {
    const response = await fetch(`${stack.gatewayUrls[0] ?? ''}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `hook-${randomBytes(8).toString('hex')}` },
      body: JSON.stringify({ url, enabled_events: ['*'] }),
    });
    return { status: response.status, text: await response.text() };
  };

  test('a test endpoint at the admin listener, the metadata address or loopback in IPv6 is refused at creation (400 invalid_parameter, param url)', async () => {
    const admin = new URL(stack.adminUrls[0] ?? '');
    expect(stack.env.WEBHOOK_ALLOW_PRIVATE).toBeUndefined();
    for (const url of [`http://127.0.0.1:${admin.port}/v1/accounts`, 'http://169.254.169.254/latest/meta-data/', `http://[::ffff:0:7f00:1]:${admin.port}/`]) {
      const answer = await create(url);
      expect(answer.status, url).toBe(400);
      const body = JSON.parse(answer.text) as { error: { code: string; param: string; message: string } };
      expect(body.error).toMatchObject({ code: 'invalid_parameter', param: 'url' });
      expect(answer.text).not.toContain('127.0.0.1');
      expect(answer.text).not.toContain('169.254');
    }
    const listed = await fetch(`${stack.gatewayUrls[0] ?? ''}/v1/webhooks`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });
});
