import type { IncomingMessage, Server, ServerResponse } from 'node:http';

let draining = false;

/** True from the moment the process was asked to stop: `/readyz` fails so traffic moves away. */
export const isDraining = (): boolean => draining;

/** Marks the process as stopping (SIGTERM): not ready any more, and every answer closes its connection. */
export function beginDrain(): void {
  draining = true;
}

const inFlight = new WeakMap<Server, Set<ServerResponse>>();
const enders = new WeakMap<ServerResponse, () => void>();
const requestOf = new WeakMap<ServerResponse, IncomingMessage>();

/**
 * Marks a long-lived response (an event stream) that never finishes by itself: a drain ends it
 * with `end` at once instead of waiting for it until the deadline. The client reconnects, to an
 * instance that is not stopping.
 */
export function endOnDrain(res: ServerResponse, end: () => void): void {
  enders.set(res, end);
}

/**
 * Follows the responses a server has under way, so a drain can finish them and close their
 * connections. From the drain on, every answer carries `Connection: close`: a client that keeps
 * a connection busy cannot hold the process up.
 */
export function trackRequests(server: Server): void {
  const open = new Set<ServerResponse>();
  inFlight.set(server, open);
  // First among the listeners, so the header is set before the app can answer; and never on an
  // answer already sent (a synchronous one, e.g. /readyz's 503), which would throw and crash the stop.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    open.add(res);
    requestOf.set(res, req);
    res.once('close', () => open.delete(res));
  });
}

/**
 * Whether the service is working on this request: its body has all arrived and no answer has
 * been written yet. Such a request is the service's to finish, not the client's to hold up.
 */
function beingWorkedOn(res: ServerResponse): boolean {
  return requestOf.get(res)?.complete === true && !res.writableEnded;
}

/**
 * Stops a server gracefully: no new connections, idle keep-alive connections closed at once,
 * requests under way finished with `Connection: close`, streams ended (`endOnDrain`). After
 * `deadlineMs` what a client holds open is cut (a body still arriving, an answer it does not
 * read, an idle connection), but a request the service is still working on is left to finish: it
 * was accepted, and cutting it would answer the caller with a failure while its work goes on and
 * then meets a closed pool (record 0210). The process deadline (`exitOnSignal`) still bounds it.
 * Resolves when the server is closed.
 */
export function closeServer(server: Server, deadlineMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      for (const res of inFlight.get(server) ?? []) if (!beingWorkedOn(res)) res.socket?.destroy();
      server.closeIdleConnections();
    }, deadlineMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    for (const res of inFlight.get(server) ?? []) {
      const end = enders.get(res);
      if (end) {
        res.shouldKeepAlive = false;
        end();
        continue;
      }
      if (!res.headersSent) res.setHeader('Connection', 'close');
      // Once it has answered, the connection closes instead of waiting for another request.
      res.shouldKeepAlive = false;
    }
    server.closeIdleConnections();
  });
}
