import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, type ErrorCode } from '@connectivity/contracts';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the server answers one request. */
export type Step = (req: IncomingMessage, res: ServerResponse) => void;

export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_0123456789abcdefghijkl', ...headers });
    res.end(JSON.stringify(body));
  };

/** The catalogue's error body for `code`, with the status the catalogue gives it. */
export const apiError = (code: ErrorCode, options: { param?: string; message?: string; detail?: string } = {}, headers: Record<string, string> = {}): Step => {
  const error = new ApiError(code, options);
  return json(error.status, error.toBody('https://api.example.test'), headers);
};

/** The connection is cut before any answer: what a crash, a proxy timeout or a lost response looks like. */
export const drop: Step = (req) => req.socket.destroy();

/**
 * A real HTTP server that answers each request with the next step of a script (then with
 * `fallback`) and records what the client sent, so tests check the wire and not the client's
 * own idea of it.
 */
export async function startScriptedServer() {
  const requests: Recorded[] = [];
  let script: Step[] = [];
  const emptyList = json(200, { object: 'list', data: [], has_more: false, next_cursor: null });
  let fallback = emptyList;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      (script.shift() ?? fallback)(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** Replaces the script (and the answer after it, an empty list by default) and forgets earlier requests. */
    play(steps: Step[], otherwise: Step = emptyList) {
      script = [...steps];
      fallback = otherwise;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
