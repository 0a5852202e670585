import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  id: string;
  type: string;
  data: { object?: { id?: string; state?: string } };
}

/**
 * A webhook receiver as an integrator writes one: every delivery is verified with
 * `standardwebhooks` as it is (on the raw body); verified ones are kept by `webhook-id`, the
 * rest counted as rejected. It listens on the loopback unless told an address (e.g. the one
 * containers reach the host at).
 */
export async function startReceiver(host = '127.0.0.1'): Promise<{
  url: string;
  useSecret(secret: string): void;
  delivered: Map<string, Delivery>;
  attempts: () => number;
  rejected: string[];
  close(): Promise<void>;
}> {
  let webhook: Webhook | undefined;
  const delivered = new Map<string, Delivery>();
  const rejected: string[] = [];
  let attempts = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      attempts += 1;
      try {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        if (!webhook) throw new Error('no secret yet');
        const event = webhook.verify(Buffer.concat(chunks).toString('utf8'), headers) as Delivery;
        delivered.set(event.id, event);
        res.writeHead(204).end();
      } catch (error) {
        rejected.push(String(error));
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hooks`,
    useSecret(secret) {
      webhook = new Webhook(secret);
    },
    delivered,
    attempts: () => attempts,
    rejected,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
