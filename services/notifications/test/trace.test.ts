import { buildEvent, eventSubject } from '@connectivity/platform';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esim } from './support/fixtures.ts';
import { Harness, caller, eventually, newAccount } from './support/harness.ts';
import { Receiver } from './support/receiver.ts';

// A real tracer in this test process: the spans the service makes are recorded in memory.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

let h: Harness;
let receiver: Receiver;
beforeAll(async () => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  h = await Harness.create();
  await h.start();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
  await provider.shutdown();
});

describe('tracing', () => {
  it('a webhook delivery continues the trace the event was published in, even when made later', async () => {
    const me = caller(newAccount(), 'test');
    const endpoint = await h.endpoint(me, receiver.url('/traced'));
    receiver.secret('/traced', endpoint.secret);

    // As the outbox relay publishes it: the trace context of the request that caused the event.
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const event = buildEvent({
      type: 'esim.activated',
      environment: 'test',
      accountId: me.accountId,
      data: { object: esim('active'), previous_state: 'installed' },
    });
    await h.bus.publish({
      id: event.id,
      subject: eventSubject(event.environment, event.type),
      payload: event,
      headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    });

    await eventually(() => receiver.hits('/traced').length === 1, 10_000, 'the delivery');
    const span = await eventually(() => exporter.getFinishedSpans().find((s) => s.name === 'webhook deliver'), 10_000, 'the delivery span');
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.attributes).toMatchObject({ 'event.id': event.id, 'webhook.endpoint.id': endpoint.id, 'webhook.attempt': 1, 'webhook.succeeded': true });
    expect(receiver.rejected).toEqual([]);
  });
});
