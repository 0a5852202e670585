import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { SilentListener } from './support/held-receiver.ts';

/**
 * An attempt has three limits: the connection (TCP, and the TLS handshake for https), the first
 * byte of the answer, and the whole answer. Here the first two are short and the whole window
 * long, so an attempt that ends early was ended by the limit under test.
 */
let h: Harness;
let silent: SilentListener;
beforeAll(async () => {
  silent = await SilentListener.start();
  h = await Harness.create({
    WEBHOOK_TIMEOUT_MS: '20000',
    DELIVERY_LEASE_MS: '60000',
    WEBHOOK_CONNECT_TIMEOUT_MS: '300',
    WEBHOOK_FIRST_BYTE_TIMEOUT_MS: '300',
    // One attempt is enough to look at.
    WEBHOOK_RETRY_SCHEDULE_MS: '600000',
  });
  await h.start();
});
afterAll(async () => {
  await silent?.close();
  await h?.close();
});

async function firstAttempt(url: string) {
  const me = caller(newAccount(), 'test');
  const endpoint = await h.endpoint(me, url);
  await h.publish(me, 'esim.activated', { object: esim('active'), previous_state: 'installed' });
  const [attempt] = await eventually(
    async () => {
      const list = (await h.get(me, `/v1/webhooks/${endpoint.id}/deliveries`)).body.data as { status: string; error: string | null; duration_ms: number }[];
      return list.length > 0 && list;
    },
    25_000,
    'the first attempt',
  );
  return attempt!;
}

/** A server that takes the request, sends the first bytes of its answer at once and the rest after `pauseMs`. */
async function slowAnswer(pauseMs: number): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write('HTTP/1.1 2');
      setTimeout(() => socket.end('04 No Content\r\nconnection: close\r\n\r\n'), pauseMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('attempt limits', () => {
  it('a host that accepts the connection but never does the TLS handshake is given up on at WEBHOOK_CONNECT_TIMEOUT_MS', async () => {
    const attempt = await firstAttempt(`https://127.0.0.1:${silent.port}/tls`);
    expect(attempt).toMatchObject({ status: 'failed', error: 'timeout' });
    // The whole answer's window is 20 s.
    expect(attempt.duration_ms).toBeLessThan(5_000);
  });

  it('a host that takes the request and never answers is given up on at WEBHOOK_FIRST_BYTE_TIMEOUT_MS', async () => {
    const attempt = await firstAttempt(`http://127.0.0.1:${silent.port}/http`);
    expect(attempt).toMatchObject({ status: 'failed', error: 'timeout' });
    expect(attempt.duration_ms).toBeLessThan(5_000);
  });

  it('an answer begun within the first-byte limit has the whole window to finish', async () => {
    const server = await slowAnswer(1_000);
    try {
      const attempt = await firstAttempt(server.url);
      expect(attempt).toMatchObject({ status: 'succeeded', error: null });
      expect(attempt.duration_ms).toBeGreaterThanOrEqual(900);
    } finally {
      await server.close();
    }
  });
});
