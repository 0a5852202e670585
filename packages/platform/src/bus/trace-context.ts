/**
 * W3C trace context across the bus, by hand: OpenTelemetry has no NATS instrumentation, so the
 * adapters inject the context into message headers on publish and restore it around handlers.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { Attributes, Context, Span, TextMapGetter } from '@opentelemetry/api';
import type { BusMessage, PublishInput } from './types.ts';

const tracer = trace.getTracer('@connectivity/platform/bus');

// Header names may come back in another case than the propagator asks for (`traceparent`).
const headerGetter: TextMapGetter<Record<string, string>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const wanted = key.toLowerCase();
    const found = Object.keys(carrier).find((k) => k.toLowerCase() === wanted);
    return found === undefined ? undefined : carrier[found];
  },
};

export function hasTraceparent(headers: Record<string, string>): boolean {
  return headerGetter.get(headers, 'traceparent') !== undefined;
}

/** Writes the trace context of `ctx` (the active one by default) into `headers`, and returns them. */
export function injectTraceContext(headers: Record<string, string>, ctx: Context = context.active()): Record<string, string> {
  propagation.inject(ctx, headers);
  return headers;
}

/** The context carried by `headers`; based on the root so a handler never nests under its subscriber. */
export function extractTraceContext(headers: Record<string, string>): Context {
  return propagation.extract(ROOT_CONTEXT, headers, headerGetter);
}

/** Runs `fn` with the trace context carried by the message headers as the active context. */
export function withExtractedContext<T>(headers: Record<string, string>, fn: () => T): T {
  return context.with(extractTraceContext(headers), fn);
}

async function endSpan<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Wraps a publish in a PRODUCER span. A `traceparent` given by the caller (e.g. stored with an
 * outbox row by the request that caused the event) parents the span; otherwise the active
 * context does. The message carries the publish span's own context, so the consumer's span is
 * its child: request → publish → consume.
 */
export function tracePublish<R>(system: string, input: PublishInput, send: (headers: Record<string, string>) => Promise<R>): Promise<R> {
  const given = input.headers ?? {};
  const callerTraced = hasTraceparent(given);
  const parent = callerTraced ? extractTraceContext(given) : context.active();
  const attributes: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': 'send',
    'messaging.destination.name': input.subject,
    'messaging.message.id': input.id,
  };
  return tracer.startActiveSpan(`${input.subject} publish`, { kind: SpanKind.PRODUCER, attributes }, parent, (span) =>
    endSpan(span, () => send(injectTraceContext({ ...given }))),
  );
}

/** Runs a handler inside the message's trace context, in a CONSUMER span. */
export function traceProcess(system: string, durable: string, msg: BusMessage, handle: () => Promise<void>): Promise<void> {
  const attributes: Attributes = {
    'messaging.system': system,
    'messaging.operation.type': 'process',
    'messaging.destination.name': msg.subject,
    'messaging.message.id': msg.id,
    'messaging.consumer.group.name': durable,
    'messaging.message.delivery_count': msg.deliveryCount,
  };
  return withExtractedContext(msg.headers, () =>
    tracer.startActiveSpan(`${msg.subject} process`, { kind: SpanKind.CONSUMER, attributes }, (span) => endSpan(span, handle)),
  );
}
