import { SpanKind, trace, type Attributes, type Link } from '@opentelemetry/api';
import { extractTraceContext } from '../bus/trace-context.ts';

const tracer = trace.getTracer('@connectivity/platform/work');

/** The requests (trace contexts in W3C headers) that caused a batch of background work, as span links. */
export function linksTo(carriers: readonly Record<string, string>[]): Link[] {
  const links: Link[] = [];
  for (const carrier of carriers) {
    const context = trace.getSpanContext(extractTraceContext(carrier));
    if (context && trace.isSpanContextValid(context)) links.push({ context });
  }
  return links;
}

/**
 * Runs a batch of background work in a span of its own trace (a root: no request's trace ever
 * holds it), linked to the requests that caused the work, so an SRE can go from the batch to
 * each request and back. Only batches that found work get a span; idle polls make none.
 */
export function inBackgroundSpan<T>(name: string, links: Link[], attributes: Attributes, work: () => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { root: true, kind: SpanKind.INTERNAL, links, attributes }, async (span) => {
    try {
      return await work();
    } finally {
      span.end();
    }
  });
}
