import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';

export interface WebhookReceiver {
  url: string;
  /** Sets the endpoint's signing secret (known once the endpoint is created). */
  useSecret(secret: string): void;
  /** When each eSIM's `esim.released` arrived verified (performance.now()), by eSIM id. */
  released: Map<string, number>;
  verified: number;
  rejected: number;
  /** Resolves when the eSIM's `esim.released` has arrived (or at once if it already has). */
  waitFor(esimId: string, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** A webhook endpoint that verifies every delivery with `standardwebhooks`, as an integrator would. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  let webhook: Webhook | undefined;
  const released = new Map<string, number>();
  const waiters = new Map<string, () => void>();
  const receiver = {
    released,
    verified: 0,
    rejected: 0,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      try {
        if (!webhook) throw new Error('no secret yet');
        const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
        const event = webhook.verify(Buffer.concat(chunks).toString('utf8'), headers) as { type?: string; data?: { object?: { id?: string } } };
        receiver.verified += 1;
        const id = event.data?.object?.id;
        if (event.type === 'esim.released' && id !== undefined && !released.has(id)) {
          released.set(id, at);
          waiters.get(id)?.();
        }
        res.writeHead(204).end();
      } catch {
        receiver.rejected += 1;
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    useSecret(secret: string) {
      webhook = new Webhook(secret);
    },
    waitFor(esimId: string, timeoutMs: number) {
      if (released.has(esimId)) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters.delete(esimId);
          resolve(false);
        }, timeoutMs);
        waiters.set(esimId, () => {
          clearTimeout(timer);
          waiters.delete(esimId);
          resolve(true);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
