import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver got, after `standardwebhooks` verified it. */
export interface Received {
  path: string;
  id: string;
  timestamp: number;
  signature: string;
  event: { id: string; type: string; environment: string; data: Record<string, unknown>; [key: string]: unknown };
  at: number;
}

export type Reply = { status: number; headers?: Record<string, string> };

/**
 * A real webhook receiver on a loopback port. Every request is verified with the
 * `standardwebhooks` library as a customer would use it; one that fails verification is
 * counted in `rejected` and answered 400.
 */
export class Receiver {
  readonly received: Received[] = [];
  readonly rejected: { path: string; reason: string }[] = [];
  private readonly secrets = new Map<string, string>();
  private readonly replies = new Map<string, (attempt: number) => Reply>();
  private readonly server: http.Server;

  private constructor(server: http.Server) {
    this.server = server;
  }

  static async start(): Promise<Receiver> {
    const server = http.createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** The signing secret of the endpoint at `path` (from its create response). */
  secret(path: string, secret: string): void {
    this.secrets.set(path, secret);
  }

  /** How `path` answers its n-th request (1-based); 204 unless set. */
  reply(path: string, reply: (attempt: number) => Reply): void {
    this.replies.set(path, reply);
  }

  /** Every request made to `path` so far, verified or not. */
  hits(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  private count = new Map<string, number>();

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = this.secrets.get(path);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      let event: Received['event'];
      try {
        if (!secret) throw new Error('no secret registered for this path');
        event = new Webhook(secret).verify(body, headers) as Received['event'];
      } catch (err) {
        this.rejected.push({ path, reason: err instanceof Error ? err.message : String(err) });
        res.writeHead(400).end();
        return;
      }
      this.received.push({
        path,
        id: headers['webhook-id'] ?? '',
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature'] ?? '',
        event,
        at: Date.now(),
      });
      const n = (this.count.get(path) ?? 0) + 1;
      this.count.set(path, n);
      const reply = this.replies.get(path)?.(n) ?? { status: 204 };
      res.writeHead(reply.status, reply.headers).end();
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
