import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEsimGoFake, type EsimGoFake } from '@connectivity/fake-suppliers';
import { closeServer, listen } from '@connectivity/platform';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { headersFor, newCaller, startCatalogue, type CatalogueHarness } from './support.ts';

/**
 * A vendor call starts clean (record 0205): with the tracing a deployment runs (W3C trace context
 * and baggage, fetch instrumented), a client's `traceparent` and `baggage` reach catalogue, and
 * what the vendor receives is a trace of catalogue's own, without baggage. The vendor is the eSIM
 * Go fake behind a loopback relay that records the headers it is sent.
 */
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
let fetchInstrumentation: UndiciInstrumentation | undefined;

/** A relay to the fake that keeps the headers of every request. */
async function startRelay(target: string): Promise<{ url: string; seen: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const seen: IncomingHttpHeaders[] = [];
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    const onward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: `${upstream.pathname.replace(/\/+$/, '')}${req.url ?? ''}`,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    onward.on('error', () => res.writeHead(502).end());
    req.pipe(onward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let fake: EsimGoFake;
let relay: Awaited<ReturnType<typeof startRelay>>;
let h: CatalogueHarness;
let server: Server;
let base: string;
beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  // As a deployment's telemetry instruments fetch (enabled on creation).
  fetchInstrumentation = new UndiciInstrumentation();
  fetchInstrumentation.setTracerProvider(provider);
  fake = await startEsimGoFake();
  relay = await startRelay(fake.url);
  h = await startCatalogue({ supplier: fake, env: { ESIMGO_API_URL: relay.url } });
  // The real listener: its server span continues the caller's trace, as in a deployment.
  server = await listen(h.app, 0, '127.0.0.1');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  fetchInstrumentation?.disable();
  if (server) await closeServer(server, 1_000);
  await h?.close();
  await relay?.close();
  await fake?.close();
  await provider.shutdown();
});

describe('a vendor call', () => {
  it("sends a fresh trace context and no baggage, and its span links the request's", async () => {
    const clientTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    // Sent with node:http (supertest), which nothing here instruments: the headers go as written.
    const res = await request(base)
      .get('/v1/esim/bundles')
      .set(headersFor(newCaller('live')))
      .set('traceparent', `00-${clientTrace}-00f067aa0ba902b7-01`)
      .set('baggage', 'user.id=alice,tenant.secret=s3cr3t');
    expect(res.status).toBe(200);
    // The request's span continues the caller's trace, baggage and all.
    expect(
      exporter
        .getFinishedSpans()
        .find((span) => span.name === 'GET /v1/esim/bundles')
        ?.spanContext().traceId,
    ).toBe(clientTrace);
    expect(relay.seen.length).toBeGreaterThan(0);
    for (const headers of relay.seen) {
      expect(headers.baggage).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(clientTrace);
      expect(JSON.stringify(headers)).not.toContain('alice');
      // A trace context is still sent, of a trace of our own.
      expect(headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    }
    const vendorSpans = exporter.getFinishedSpans().filter((span) => span.attributes['supplier.vendor'] === 'esim-go');
    expect(vendorSpans.length).toBeGreaterThan(0);
    for (const span of vendorSpans) {
      // A trace of its own: no parent, linked to what it was made for (the request, or the vendor
      // call that needed it, e.g. a lookup made inside another call).
      expect(span.spanContext().traceId).not.toBe(clientTrace);
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.links).toHaveLength(1);
    }
    expect(vendorSpans.some((span) => span.links[0]?.context.traceId === clientTrace)).toBe(true);
    // What the vendor got is this trace: the fetch span under the vendor span.
    const sentTraces = new Set(relay.seen.map((headers) => String(headers.traceparent).split('-')[1]));
    for (const id of sentTraces) expect(vendorSpans.map((span) => span.spanContext().traceId)).toContain(id);
  });
});
