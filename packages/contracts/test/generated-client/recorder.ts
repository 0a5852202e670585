import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export type Answer = { status: number; body: unknown };

/** A real HTTP server that keeps every request as it arrived and answers from a table keyed `METHOD /path`. */
export class Recorder {
  readonly requests: Recorded[] = [];
  private readonly server: Server;
  private readonly answers: Record<string, Answer>;

  private constructor(answers: Record<string, Answer>) {
    this.answers = answers;
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(answers: Record<string, Answer>): Promise<Recorder> {
    const recorder = new Recorder(answers);
    await new Promise<void>((resolve) => recorder.server.listen(0, '127.0.0.1', resolve));
    return recorder;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://recorder');
      const raw = Buffer.concat(chunks).toString('utf8');
      this.requests.push({
        method: req.method ?? '',
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: raw === '' ? undefined : (JSON.parse(raw) as unknown),
      });
      const key = `${req.method} ${url.pathname}`;
      const answer = this.answers[key] ?? { status: 599, body: { unexpected: key } };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.server.close((err) => (err ? reject(err) : resolve())));
  }
}
