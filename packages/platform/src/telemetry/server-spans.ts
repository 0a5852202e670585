import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import {
  context,
  metrics,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  ValueType,
  type Attributes,
  type Histogram,
  type Tracer,
} from '@opentelemetry/api';
import { RPCType, setRPCMetadata, suppressTracing, type RPCMetadata } from '@opentelemetry/core';

/** Paths that are not traced: probes and scrapes would bury the requests that matter. */
const UNTRACED_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);
/**
 * Paths where third parties call us back (the suppliers' `/hooks/<vendor>`): their requests start
 * a trace of our own, with the caller's `traceparent`, if any, as a link. A vendor's trace id is
 * not ours to continue: every callback would otherwise join whatever trace the vendor chose (record 0153).
 */
const OWN_TRACE_PREFIX = '/hooks/';

const SCOPE = '@connectivity/platform/http-server';
// The semantic conventions' methods; anything else is `_OTHER`, so a client cannot mint label values.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);
// The buckets the HTTP semantic conventions advise for `http.server.request.duration`.
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

let instruments: { tracer: Tracer; duration: Histogram } | undefined;
/**
 * Made at the first request, once the SDK has registered its providers (a meter taken before
 * that would stay a no-op).
 */
function theInstruments() {
  instruments ??= {
    tracer: trace.getTracer(SCOPE),
    duration: metrics.getMeter(SCOPE).createHistogram('http.server.request.duration', {
      description: 'Duration of HTTP server requests.',
      unit: 's',
      valueType: ValueType.DOUBLE,
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
  };
  return instruments;
}

/**
 * The server side of HTTP tracing, in place of `@opentelemetry/instrumentation-http`'s (which
 * stays on for outgoing `node:http` calls): one SERVER span per request, continuing the caller's
 * `traceparent`, named and labelled by the route the app resolves (`HTTPMetadata.route`, set by
 * the contract layer), and the `http.server.request.duration` histogram of the semantic
 * conventions with the same attributes.
 *
 * Why not the instrumentation: it binds the request and the response emitters to the context
 * (every listener anyone adds is wrapped) and computes a dozen attributes per request, a cost
 * out of proportion to a read (docs/decisions/0022-incoming-request-span-is-the-platforms.md).
 * Nothing here needs the binding:
 * promise continuations keep the context, express's JSON parser (raw-body) binds its own
 * callback, and the one listener that logs (`accessLog`) binds itself.
 */
export function traceRequests(listener: RequestListener): RequestListener {
  const suppressed = suppressTracing(ROOT_CONTEXT);
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (UNTRACED_PATHS.has(path)) {
      context.with(suppressed, listener, undefined, req, res);
      return;
    }
    const { tracer, duration } = theInstruments();
    const method = METHODS.has(req.method ?? '') ? (req.method as string) : '_OTHER';
    const started = performance.now();
    const callers = propagation.extract(ROOT_CONTEXT, req.headers);
    const ownTrace = path.startsWith(OWN_TRACE_PREFIX);
    const parent = ownTrace ? ROOT_CONTEXT : callers;
    const callerSpan = ownTrace ? trace.getSpanContext(callers) : undefined;
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': method,
          'url.scheme': 'http',
          'url.path': path,
          'network.protocol.version': req.httpVersion,
          'network.peer.address': req.socket.remoteAddress,
          'user_agent.original': req.headers['user-agent'],
        },
        links: callerSpan && trace.isSpanContextValid(callerSpan) ? [{ context: callerSpan }] : undefined,
      },
      parent,
    );
    const rpc: RPCMetadata = { type: RPCType.HTTP, span };
    const active = setRPCMetadata(trace.setSpan(parent, span), rpc);
    res.once('close', () => {
      const status = res.statusCode;
      const attributes: Attributes = {
        'http.request.method': method,
        'url.scheme': 'http',
        'network.protocol.version': req.httpVersion,
        'http.response.status_code': status,
      };
      span.setAttribute('http.response.status_code', status);
      if (rpc.route !== undefined) {
        attributes['http.route'] = rpc.route;
        span.setAttribute('http.route', rpc.route);
        span.updateName(`${method} ${rpc.route}`);
      }
      if (status >= 500) {
        attributes['error.type'] = String(status);
        span.setAttribute('error.type', String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      duration.record((performance.now() - started) / 1000, attributes);
    });
    context.with(active, listener, undefined, req, res);
  };
}
