import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { injectTraceContext } from '../src/bus/trace-context.ts';
import { continuingTrace } from '../src/work/links.ts';

// Background work for one stored request, with real SDK providers in this process.
const spans = new InMemorySpanExporter();
const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] }));
});
afterAll(() => {
  trace.disable();
  propagation.disable();
  context.disable();
});

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const STORED_SPAN = 'b7ad6b7169203331';

describe('continuingTrace', () => {
  test("continues the stored request's trace: its span is the parent, and what the work stores carries the span on", async () => {
    const carried = await continuingTrace('report apply', { traceparent: `00-${TRACE_ID}-${STORED_SPAN}-01` }, { 'supplier.vendor': 'airalo' }, (span) => {
      span.setAttribute('supplier.report.outcome', 'applied');
      // What an outbox row written here would carry.
      return Promise.resolve(injectTraceContext({}));
    });
    const [span] = spans.getFinishedSpans().filter((s) => s.name === 'report apply');
    expect(span?.spanContext().traceId).toBe(TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(STORED_SPAN);
    expect(span?.attributes).toEqual({ 'supplier.vendor': 'airalo', 'supplier.report.outcome': 'applied' });
    expect(carried.traceparent).toBe(`00-${TRACE_ID}-${span?.spanContext().spanId}-01`);
  });

  test('without stored headers the span is a root, and an error still ends it', async () => {
    spans.reset();
    await expect(
      continuingTrace('report apply', {}, {}, () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const [span] = spans.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.spanContext().traceId).not.toBe(TRACE_ID);
  });
});
