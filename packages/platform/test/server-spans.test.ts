import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, metrics, propagation, trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { getRPCMetadata, RPCType, W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, DataPointType, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { listen } from '../src/service/run-service.ts';

// The server spans as a deployable makes them (`listen`), with real SDK providers in this process.
const spans = new InMemorySpanExporter();
const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const contextManager = new AsyncLocalStorageContextManager().enable();
let server: Server;
let url: string;

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const traceparent = `00-${TRACE_ID}-${CALLER_SPAN}-01`;

beforeAll(async () => {
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

  const app = express();
  app.get('/healthz', (_req, res) => {
    res.json({ seen: trace.getActiveSpan()?.spanContext().traceId ?? null });
  });
  // A JSON body is read by listeners on the request: the handler after the parser must still be
  // in the request's span (the contract layer names the route there).
  app.post('/things/:id', express.json(), (req, res) => {
    const rpc = getRPCMetadata(context.active());
    if (rpc?.type === RPCType.HTTP) rpc.route = '/things/:id';
    res.status(201).json({ seen: trace.getActiveSpan()?.spanContext().traceId ?? null, body: req.body as unknown });
  });
  app.post('/hooks/:vendor', (_req, res) => {
    res.json({ seen: trace.getActiveSpan()?.spanContext().traceId ?? null });
  });
  app.get('/boom', (_req, res) => {
    res.status(503).json({ error: { code: 'service_unavailable' } });
  });
  server = await listen(app, 0, '127.0.0.1');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await reader.shutdown();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
});

beforeEach(() => spans.reset());

/** The span ends when the response closes, just after the client has its answer. */
async function finishedSpans(count: number) {
  for (let i = 0; i < 100 && spans.getFinishedSpans().length < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  return spans.getFinishedSpans();
}

describe('a span per incoming request (listen)', () => {
  test("continues the caller's traceparent through a JSON body to the handler, named by its route", async () => {
    const response = await request(url).post('/things/42').set('traceparent', traceparent).send({ a: 1 });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ seen: TRACE_ID, body: { a: 1 } });
    const [span, ...others] = await finishedSpans(1);
    expect(others).toHaveLength(0);
    expect(span?.name).toBe('POST /things/:id');
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(span?.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.path': '/things/42',
      'http.route': '/things/:id',
      'http.response.status_code': 201,
    });
    expect(span?.status.code).toBe(SpanStatusCode.UNSET);
  });

  test('a request without traceparent starts its own trace; a 5xx marks the span as an error', async () => {
    expect((await request(url).get('/boom')).status).toBe(503);
    const [span] = await finishedSpans(1);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.name).toBe('GET');
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['error.type']).toBe('503');
  });

  test("a supplier's callback (/hooks/...) starts a trace of our own, linked to the caller's traceparent", async () => {
    const response = await request(url).post('/hooks/esim-go').set('traceparent', traceparent).send({});
    expect(response.status).toBe(200);
    const [span] = await finishedSpans(1);
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
    expect(response.body).toEqual({ seen: span?.spanContext().traceId });
    expect(span?.links.map((link) => link.context.spanId)).toEqual([CALLER_SPAN]);

    // Without a traceparent: its own trace, no link.
    spans.reset();
    await request(url).post('/hooks/airalo').send({});
    const [plain] = await finishedSpans(1);
    expect(plain?.parentSpanContext).toBeUndefined();
    expect(plain?.links).toEqual([]);
  });

  test('health probes are not traced', async () => {
    const response = await request(url).get('/healthz').set('traceparent', traceparent);
    expect(response.body).toEqual({ seen: null });
    await request(url).get('/boom');
    // The probe's span would have ended first.
    const ended = await finishedSpans(1);
    expect(ended.map((span) => span.attributes['url.path'])).toEqual(['/boom']);
  });

  test('http.server.request.duration is recorded per method, route and status, in seconds', async () => {
    await request(url).post('/things/1').send({});
    await request(url).post('/things/2').send({});
    await finishedSpans(2);
    await reader.forceFlush();
    const metric = metricExporter
      .getMetrics()
      .flatMap((resource) => resource.scopeMetrics.flatMap((scope) => scope.metrics))
      .findLast((m) => m.descriptor.name === 'http.server.request.duration');
    expect(metric?.descriptor.unit).toBe('s');
    expect(metric?.dataPointType).toBe(DataPointType.HISTOGRAM);
    const point = metric?.dataPoints.find((p) => p.attributes['http.route'] === '/things/:id');
    expect(point?.attributes).toMatchObject({ 'http.request.method': 'POST', 'http.response.status_code': 201, 'url.scheme': 'http' });
    expect((point?.value as { count: number }).count).toBeGreaterThanOrEqual(2);
  });
});
