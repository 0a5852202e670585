import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

interface TracedAppOutput {
  traceId: string | null;
  heard: Record<string, string | undefined>;
  receiverPort: number;
  metrics: string;
}

function runTracedApp(env: NodeJS.ProcessEnv): Promise<TracedAppOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', './src/telemetry/register.mjs', 'test/fixtures/traced-app.ts'], {
      cwd: packageDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => {
      if (code !== 0) reject(new Error(`exit ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as TracedAppOutput);
    });
  });
}

describe('telemetry (node --import register.mjs)', () => {
  test('fetch sends the trace on, and express handlers run inside a real span that continues it', async () => {
    // No endpoint: nothing is exported, yet spans are real (trace ids in logs, bus propagation).
    const seen = await runTracedApp({ OTEL_SERVICE_NAME: 'telemetry-test', OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    expect(seen.traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  test('a request marked untraced (a tenant webhook) carries no traceparent and labels no metric with its host', async () => {
    const seen = await runTracedApp({ OTEL_SERVICE_NAME: 'telemetry-test', OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    expect(seen.heard['/traced']).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-/);
    expect(seen.heard['/untraced']).toBe('none');
    // Only the traced call was counted: one series for the receiver's port, with one observation.
    const series = seen.metrics
      .split('\n')
      .filter((line) => line.startsWith('http_client_request_duration_count') && line.includes(`server_port="${seen.receiverPort}"`));
    expect(series).toHaveLength(1);
    expect(series[0]).toMatch(/ 1$/);
  });

  test('spans are exported over OTLP/HTTP when an endpoint is configured', async () => {
    const bodies: string[] = [];
    const collector = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('latin1')));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(body);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      await runTracedApp({ OTEL_SERVICE_NAME: 'telemetry-test', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
      const exported = bodies.join('\n');
      expect(exported).toContain('telemetry-test');
      expect(exported).toContain('0af7651916cd43dd8448eb211c80319c');
    } finally {
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });

  test('spans go out as OTLP protobuf unless asked for JSON (smaller and cheaper to encode)', async () => {
    const types: string[] = [];
    const collector = createServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => {
        if (req.url === '/v1/traces') types.push(String(req.headers['content-type']));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      await runTracedApp({ OTEL_SERVICE_NAME: 'telemetry-test', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: '' });
      expect(types.length).toBeGreaterThan(0);
      expect(types.every((type) => type === 'application/x-protobuf')).toBe(true);
    } finally {
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});
