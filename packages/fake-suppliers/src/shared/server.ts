import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

export interface TlsOptions {
  key: string;
  cert: string;
}

/**
 * A listener that can go down (refuse connections: nothing listens on the port) and come back
 * on the same port, so a client sees what it sees when a vendor is unreachable.
 */
export class FakeServer {
  private server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  readonly protocol: 'http' | 'https';
  private readonly host: string;

  constructor(app: RequestListener, options: { host?: string; tls?: TlsOptions }) {
    this.host = options.host ?? '127.0.0.1';
    this.protocol = options.tls ? 'https' : 'http';
    this.server = options.tls ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, app) : createHttpServer(app);
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  get origin(): string {
    return `${this.protocol}://${this.host}:${this.port}`;
  }

  get down(): boolean {
    return !this.server.listening;
  }

  listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, this.host, () => {
        this.server.off('error', reject);
        this.port = (this.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Stops listening and cuts every open connection. */
  async goDown(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  async comeUp(): Promise<void> {
    if (this.server.listening) return;
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.goDown();
  }
}
