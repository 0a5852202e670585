import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The range the OS takes the source port of an outgoing connection from (Linux says in /proc;
 * elsewhere the IANA range). A port in it can be taken by any connection made meanwhile (to
 * PostgreSQL, NATS, a peer): listening on it then fails with EADDRINUSE for as long as that
 * connection, or its TIME_WAIT, lasts.
 */
export function ephemeralPortRange(): { low: number; high: number } {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && high !== undefined && Number.isInteger(low) && Number.isInteger(high) && low <= high) return { low, high };
  } catch {
    // Not Linux: the IANA range below.
  }
  return { low: 49_152, high: 65_535 };
}

/** Ports this process handed out already: never given twice. */
const handedOut = new Set<number>();

/**
 * The lowest port handed out. Above 10,080, the highest of the ports `fetch` refuses to connect to
 * (the Fetch standard's "bad ports"; undici fails them with "bad port"): a stack's NATS monitor
 * drawn on 10080 once left a CI run waiting 30 s for a health check that could never be made.
 */
export const LOWEST_PORT = 10_100;

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    // The wildcard address, as services listen: a port taken on any address is not free.
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** A port the OS gives out for port 0: free a moment ago, but in the ephemeral range. */
function osPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * `count` consecutive ports, each free now and none given out before by this process, below the
 * ephemeral range: a port handed out stays listenable until the service it is for starts
 * (seconds later, after many connections were made), since no outgoing connection takes its
 * source port from there. Resolves with the first.
 */
export async function freePortBlock(count: number): Promise<number> {
  const { low } = ephemeralPortRange();
  const highest = low - count;
  if (highest > LOWEST_PORT) {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const base = LOWEST_PORT + Math.floor(Math.random() * (highest - LOWEST_PORT));
      const ports = Array.from({ length: count }, (_, i) => base + i);
      if (ports.some((port) => handedOut.has(port))) continue;
      if (!(await Promise.all(ports.map(listenable))).every(Boolean)) continue;
      for (const port of ports) handedOut.add(port);
      return base;
    }
  }
  // No room below the ephemeral range: the OS's choice, as a last resort (one port only).
  if (count !== 1) throw new Error(`no ${count} consecutive free ports below the ephemeral range (${low})`);
  let port = await osPort();
  while (handedOut.has(port)) port = await osPort();
  handedOut.add(port);
  return port;
}

/** A port free now, that nothing but its own service will take before it listens (see `freePortBlock`). */
export const freePort = (): Promise<number> => freePortBlock(1);
