/**
 * One trace per request, from the edge to the webhook, checked on the spans the processes
 * really export over OTLP/HTTP to a receiver in the test: the gateway's server span (with the
 * Request-Id) → its client span → the service's server span → the outbox's publish → the
 * consume → each delivery attempt, with correct parents, and no background poll inside.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { until } from '../distributed/support.ts';
import { SPAN_KIND, type ReceivedSpan } from './otlp-receiver.ts';
import type { startReceiver } from './receiver.ts';

// JSON, so the receiver in the test reads the spans without a protobuf decoder.
export const TELEMETRY = {
  OTEL_BSP_SCHEDULE_DELAY: '200',
  OTEL_METRICS_EXPORTER: 'none',
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
};

export interface World {
  gatewayUrl: string;
  key: string;
}

async function orderWithWebhook(world: World, receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const headers = (key: string) => ({ authorization: `Bearer ${world.key}`, 'content-type': 'application/json', 'idempotency-key': key });
  const hook = await fetch(`${world.gatewayUrl}/v1/webhooks`, {
    method: 'POST',
    headers: headers(`hook-${randomBytes(6).toString('hex')}`),
    body: JSON.stringify({ url: receiver.url, enabled_events: ['esim.released'] }),
  });
  const hookBody = (await hook.json()) as { secret: string };
  expect(hook.status, JSON.stringify(hookBody)).toBe(201);
  receiver.useSecret(String(hookBody.secret));
  const order = await fetch(`${world.gatewayUrl}/v1/esim`, {
    method: 'POST',
    headers: headers(`order-${randomBytes(6).toString('hex')}`),
    body: JSON.stringify({ bundle: 'esim_5GB_30D_EU', quantity: 1 }),
  });
  const body = (await order.json()) as { esims: { id: string }[] };
  expect(order.status, `${order.headers.get('request-id')}: ${JSON.stringify(body)}`).toBe(201);
  return { requestId: order.headers.get('request-id') ?? '', esimId: body.esims[0]?.id ?? '' };
}

/** `span` descends from `ancestor` through parent links within one trace. */
export function descends(spans: ReceivedSpan[], span: ReceivedSpan | undefined, ancestor: ReceivedSpan | undefined): boolean {
  if (!span || !ancestor || span.traceId !== ancestor.traceId) return false;
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? '')) if (at.spanId === ancestor.spanId) return true;
  return false;
}

/** The spans of the request's trace, once everything up to the delivery has been exported. */
function findTrace(spans: ReceivedSpan[], requestId: string, eventId: string) {
  const edge = spans.find((s) => s.kind === SPAN_KIND.SERVER && s.attributes['request.id'] === requestId && s.parentSpanId === undefined);
  if (!edge) return undefined;
  const trace = spans.filter((s) => s.traceId === edge.traceId);
  // The forward: an HTTP client span (queries are client spans too, but have no HTTP method).
  const client = trace.find((s) => s.kind === SPAN_KIND.CLIENT && s.parentSpanId === edge.spanId && s.attributes['http.request.method'] !== undefined);
  const service = trace.find((s) => s.kind === SPAN_KIND.SERVER && s.parentSpanId === client?.spanId);
  const publish = trace.find((s) => s.kind === SPAN_KIND.PRODUCER && s.attributes['messaging.message.id'] === eventId);
  const consume = trace.find((s) => s.kind === SPAN_KIND.CONSUMER && s.parentSpanId === publish?.spanId);
  const deliver = trace.find((s) => s.name === 'webhook deliver' && s.attributes['event.id'] === eventId);
  if (!client || !service || !publish || !consume || !deliver) return undefined;
  return { edge, trace, client, service, publish, consume, deliver };
}

export async function checkOneTrace(world: World, exported: ReceivedSpan[], receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const { requestId, esimId } = await orderWithWebhook(world, receiver);
  expect(requestId).toMatch(/^req_/);
  let eventId = '';
  await until(
    'the webhook delivery',
    () => {
      eventId = [...receiver.delivered.values()].find((d) => d.data.object?.id === esimId)?.id ?? '';
      return eventId !== '';
    },
    60_000,
  );
  let found: ReturnType<typeof findTrace>;
  await until('the trace, exported up to the delivery', () => (found = findTrace(exported, requestId, eventId)) !== undefined, 60_000);
  if (!found) throw new Error('no trace');
  const { edge, trace, client, service, publish, consume, deliver } = found;

  // The edge span is the root of the trace, named by the contract route, with the Request-Id.
  expect(edge.name).toBe('POST /v1/esim');
  expect(edge.attributes['http.route']).toBe('/v1/esim');
  // gateway server → gateway client → the service's server span: the hop that used to break.
  expect(service.attributes['request.id']).toBe(requestId);
  // The service's own queries and calls sit under its span.
  expect(trace.some((s) => s.kind === SPAN_KIND.CLIENT && s.parentSpanId === service.spanId)).toBe(true);
  expect(trace.some((s) => s.attributes['db.system.name'] === 'postgresql' || s.attributes['db.system'] === 'postgresql')).toBe(true);
  // outbox row → publish → consume → delivery attempt.
  expect(descends(trace, publish, service)).toBe(true);
  expect(consume.parentSpanId).toBe(publish.spanId);
  expect(descends(trace, deliver, consume)).toBe(true);
  expect(deliver.attributes['webhook.attempt']).toBe(1);
  // No background work inside the request's trace: no poll's claim query, and a bounded size.
  const statements = trace.map((s) => String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
  expect(statements.filter((sql) => /skip locked/i.test(sql))).toEqual([]);
  expect(trace.length).toBeLessThan(80);
  // The background batches that did the work are traces of their own, linked to the request.
  for (const name of ['outbox relay publish', 'webhook delivery batch']) {
    const batch = exported.find((s) => s.name === name && s.links.some((link) => link.traceId === edge.traceId));
    expect(batch, name).toBeDefined();
    expect(batch?.traceId).not.toBe(edge.traceId);
    expect(batch?.parentSpanId).toBeUndefined();
  }
  // Each hop is in one trace; no stray root span of another trace claims this request.
  expect(exported.filter((s) => s.attributes['request.id'] === requestId && s.traceId !== edge.traceId)).toEqual([]);
  return { client };
}

/**
 * Spans of each of `services` in the trace. Each process exports on its own schedule, so a service
 * whose part ended first (catalogue's, before the order's answer) may still be on its way when the
 * delivery's spans have come: waited for, then checked.
 */
export async function expectServicesInTrace(exported: ReceivedSpan[], traceId: string, services: string[]): Promise<void> {
  const inTrace = () => new Set(exported.filter((s) => s.traceId === traceId).map((s) => s.service));
  await until('spans from every service of the trace', () => services.every((name) => inTrace().has(name)), 30_000).catch(() => undefined);
  for (const name of services) expect(inTrace(), `spans of ${name} in trace ${traceId}`).toContain(name);
}
