import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { eventually } from './harness.ts';

/** A real listener for an app under test (streams need a socket, which supertest does not keep open). */
export async function listenOn(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface OpenedStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The JSON body of an answer that is not a stream. */
  body: unknown;
  /** Event ids received, in order. */
  ids: string[];
  /** Resolves once `count` events have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<string[]>;
  /** Stops reading (the socket stays open: the server's buffers fill, as with a stalled client). */
  pause(): void;
  resume(): void;
  close(): void;
}

/** Opens GET /v1/events/stream with the gateway's internal headers. */
export function openStream(url: string, headers: Record<string, string>): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/v1/events/stream`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const ids: string[] = [];
      const opened: OpenedStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: undefined,
        ids,
        waitFor: (count, timeoutMs = 10_000) => eventually(() => ids.length >= count && ids.slice(0, count), timeoutMs, `${count} events (got ${ids.length})`),
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      if (!(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        let text = '';
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          opened.body = JSON.parse(text);
          resolve(opened);
        });
        return;
      }
      let buffer = '';
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let end;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (.*)$/m.exec(frame)?.[1];
          if (id !== undefined) ids.push(id);
        }
      });
      res.on('error', () => undefined);
      resolve(opened);
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
  });
}
