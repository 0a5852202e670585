import { SpanKind, trace, type Attributes, type Link, type Span } from '@opentelemetry/api';
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
  return tracer.startActiveSpan(name, { root: true, kind: SpanKind.INTERNAL, links, attributes }, (span) => ended(span, work));
}

/**
 * Runs background work for one stored request in a span that continues the request's trace (its
 * W3C headers, stored with the work), so what the work causes (events, their webhooks) joins the
 * request's trace; without stored headers the span is a root. For work that is one request's
 * continuation, e.g. a supplier callback's reports applied from the inbox (record 0153).
 */
export function continuingTrace<T>(
  name: string,
  carrier: Record<string, string>,
  attributes: Attributes,
  work: (span: Pick<Span, 'setAttribute'>) => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, extractTraceContext(carrier), (span) => ended(span, work));
}

async function ended<T>(span: Span, work: (span: Span) => Promise<T>): Promise<T> {
  try {
    return await work(span);
  } finally {
    span.end();
  }
}
