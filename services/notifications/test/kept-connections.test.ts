import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pinnedKey } from '../src/clients/delivery-agents.ts';
import { sendWebhook, type SendRequest } from '../src/clients/webhook-sender.ts';

/**
 * Deliveries keep their connections alive (record 0277), and only a delivery that would have
 * opened the same connection, to the same checked addresses, reuses one.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A server that counts its connections and the local address each was made to. */
async function countingServer(host: string, answer: http.RequestListener) {
  const server = http.createServer(answer);
  const connections: string[] = [];
  server.on('connection', (socket) => connections.push(socket.localAddress ?? ''));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return { port: (server.address() as AddressInfo).port, connections };
}

const send = (url: string, resolveHost: SendRequest['resolveHost'] = () => Promise.resolve([])) =>
  sendWebhook({
    url,
    policy: 'any',
    headers: { 'webhook-id': 'msg_1' },
    body: '{"type":"esim.activated"}',
    timeoutMs: 5_000,
    connectTimeoutMs: 2_000,
    firstByteTimeoutMs: 2_000,
    resolveHost,
  });

describe('kept connections', () => {
  it('deliveries to one receiver go over one connection, the answer body read to its end', async () => {
    const server = await countingServer('127.0.0.1', (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok, thanks'));
    for (let i = 0; i < 5; i += 1) expect(await send(`http://127.0.0.1:${server.port}/hooks`)).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(server.connections).toHaveLength(1);
  });

  it('a name that now resolves to other addresses gets a connection of its own, to those addresses', async () => {
    // Every address of 127.0.0.0/8 is this machine's loopback.
    const server = await countingServer('0.0.0.0', (_req, res) => res.writeHead(204).end());
    const answers = [['127.0.0.1'], ['127.0.0.2'], ['127.0.0.1']];
    for (const addresses of answers)
      expect(await send(`http://receiver.test:${server.port}/hooks`, () => Promise.resolve(addresses))).toMatchObject({ kind: 'response', statusCode: 204 });
    expect(server.connections).toEqual(['127.0.0.1', '127.0.0.2']);
  });

  it('the pool tells the address policies apart, and addresses in any order alike', () => {
    expect(pinnedKey('public', ['1.1.1.1'])).not.toBe(pinnedKey('any', ['1.1.1.1']));
    expect(pinnedKey('public', ['1.1.1.1', '2606:4700::1111'])).toBe(pinnedKey('public', ['2606:4700::1111', '1.1.1.1']));
  });

  it('a kept connection the host has dropped is not a failed attempt: the request goes again on a new one', async () => {
    // Answers the first request of each connection and resets the connection at the second, as a
    // host does that closed an idle connection while the request was on its way.
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      let requests = 0;
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => {
        requests += chunk.toString('latin1').split('POST ').length - 1;
        if (requests === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
        else socket.resetAndDestroy();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

    expect(await send(url)).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(await send(url)).toMatchObject({ kind: 'response', statusCode: 200 });
    expect(connections).toBe(2);
  });

  it('an answer whose body never ends is still an answer, and its connection is closed rather than kept waiting', async () => {
    const closed = new Promise<void>((resolve, reject) => {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('still writing');
        res.on('close', () => resolve());
      });
      server.listen(0, '127.0.0.1', () => {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
        send(url).then((result) => expect(result).toMatchObject({ kind: 'response', statusCode: 200 }), reject);
      });
      closers.push(async () => {
        server.closeAllConnections();
        await new Promise<void>((done) => server.close(() => done()));
      });
    });
    // Without the drain's own limit the connection would wait on the body for ever (and the test time out).
    await closed;
  });
});
