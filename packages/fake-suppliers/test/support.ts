import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import type { FakeControl } from '../src/index.ts';

export interface ReceivedCallback {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback that records what it gets; HEAD answers 200 (Airalo's opt-in check). */
export async function startReceiver() {
  const received: ReceivedCallback[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.method !== 'HEAD') received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      res.statusCode = 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every request the test sent and every answer the fake gave matched the vendor's documents. */
export function expectFaithfulExchanges(control: FakeControl): void {
  const { requests, responses } = control.violations();
  expect(requests, 'requests that do not match the vendor document').toEqual([]);
  expect(responses, 'answers that do not match the vendor document').toEqual([]);
}

/** Waits until `check` holds (callbacks of async work), or fails after `ms`. */
export async function eventually(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export const MB = 1024 * 1024;
