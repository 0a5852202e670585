import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** One request the held receiver got: its path and `webhook-id`, in order of arrival. */
export interface Arrival {
  path: string;
  id: string;
  at: number;
}

/**
 * A receiver that answers 204 to the paths it is told to answer, and holds every other request
 * open until `open(path)`: attempts to a held path stay under way, so a test sees how many run at
 * once. It counts the requests under way per path and the most there ever were.
 */
export class HeldReceiver {
  readonly arrivals: Arrival[] = [];
  private readonly held = new Map<string, (() => void)[]>();
  private readonly opened = new Set<string>();
  private readonly underWay = new Map<string, number>();
  private readonly most = new Map<string, number>();
  private readonly server: http.Server;

  private constructor(server: http.Server) {
    this.server = server;
  }

  static async start(): Promise<HeldReceiver> {
    const server = http.createServer();
    const receiver = new HeldReceiver(server);
    server.on('request', (req, res) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  /** Answers what `path` holds now, and whatever comes to it from now on. */
  open(path: string): void {
    this.opened.add(path);
    for (const answer of this.held.get(path) ?? []) answer();
    this.held.delete(path);
  }

  /** Requests to `path` under way now (held or being answered). */
  now(path: string): number {
    return this.underWay.get(path) ?? 0;
  }

  /** The most requests to `path` ever under way at once. */
  mostAtOnce(path: string): number {
    return this.most.get(path) ?? 0;
  }

  hits(path: string): Arrival[] {
    return this.arrivals.filter((arrival) => arrival.path === path);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const path = req.url ?? '/';
    req.resume();
    req.on('end', () => {
      this.arrivals.push({ path, id: String(req.headers['webhook-id'] ?? ''), at: Date.now() });
      const count = this.now(path) + 1;
      this.underWay.set(path, count);
      this.most.set(path, Math.max(this.mostAtOnce(path), count));
      const answer = () => {
        this.underWay.set(path, this.now(path) - 1);
        res.writeHead(204).end();
      };
      if (this.opened.has(path)) answer();
      else this.held.set(path, [...(this.held.get(path) ?? []), answer]);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A TCP listener that accepts every connection and never sends a byte: a host that takes the
 * request and never answers, until `answer()`: from then on (and for the requests it holds) it
 * answers 204. `close()` drops what it holds, so attempts to it end at once.
 */
export class SilentListener {
  private readonly sockets = new Set<net.Socket>();
  private readonly asked = new Set<net.Socket>();
  private answering = false;
  /** Connections accepted so far. */
  accepted = 0;
  private readonly server: net.Server;

  private constructor(server: net.Server) {
    this.server = server;
  }

  static async start(): Promise<SilentListener> {
    const server = net.createServer();
    const listener = new SilentListener(server);
    server.on('connection', (socket) => {
      listener.accepted += 1;
      listener.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        listener.sockets.delete(socket);
        listener.asked.delete(socket);
      });
      socket.once('data', () => {
        if (listener.answering) SilentListener.reply(socket);
        else listener.asked.add(socket);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return listener;
  }

  private static reply(socket: net.Socket): void {
    socket.end('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n');
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** Connections open now. */
  get open(): number {
    return this.sockets.size;
  }

  /** Answers 204 from now on, and to the requests it holds. */
  answer(): void {
    this.answering = true;
    for (const socket of this.asked) SilentListener.reply(socket);
    this.asked.clear();
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
