import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OtlpSink {
  /** The base URL for OTEL_EXPORTER_OTLP_ENDPOINT (the exporters add /v1/traces, /v1/metrics). */
  url: string;
  /** Export requests and bytes received per signal. */
  received: Record<'traces' | 'metrics' | 'other', { requests: number; bytes: number }>;
  close(): Promise<void>;
}

/**
 * A stand-in OpenTelemetry collector: accepts OTLP/HTTP exports and drops them, so the services
 * really serialise and send their spans (the cost being measured) without a collector running.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  const received: OtlpSink['received'] = { traces: { requests: 0, bytes: 0 }, metrics: { requests: 0, bytes: 0 }, other: { requests: 0, bytes: 0 } };
  const server = createServer((req, res) => {
    const signal = req.url === '/v1/traces' ? 'traces' : req.url === '/v1/metrics' ? 'metrics' : 'other';
    const counter = received[signal];
    counter.requests += 1;
    req.on('data', (chunk: Buffer) => (counter.bytes += chunk.length));
    req.on('end', () => {
      if (req.method === 'POST' && signal !== 'other') res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(404).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
