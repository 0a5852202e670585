import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { OTLPMetricExporter as OTLPJsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as OTLPProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import { parseConfig, telemetryConfigSchema } from '../config.ts';
import { isUntracedRequest } from './untraced.ts';

let sdk: NodeSDK | undefined;
let prometheus: PrometheusExporter | undefined;

type SpanProcessor = NonNullable<NodeSDKConfiguration['spanProcessors']>[number];
/** An instrumentation, with the modules it patches (the instrumentation packages pin different SDK versions). */
type Instrumentation = Extract<NonNullable<NodeSDKConfiguration['instrumentations']>[number], { instrumentationName: string }> & {
  getModuleDefinitions(): { name: string }[];
};

/**
 * Without a span processor the SDK registers no tracer provider and every span is a no-op with
 * an all-zero trace id; this one records nothing but keeps spans (and trace ids) real.
 */
const keepSpansLocal: SpanProcessor = {
  onStart: () => {},
  onEnd: () => {},
  forceFlush: () => Promise.resolve(),
  shutdown: () => Promise.resolve(),
};

let instrumentations: Instrumentation[] | undefined;

/**
 * What is instrumented: one span per incoming request (`traceRequests` on every listener
 * `listen` opens, named by its contract route: the platform's ts-rest options and the gateway's
 * pipeline set it), per outgoing call and per query: no span per express layer, none for knex on top of pg, none for a query outside any
 * span (an idle poll). Made once, before the loader hook is registered, which wraps only the
 * modules these patch.
 */
function theInstrumentations(): Instrumentation[] {
  instrumentations ??= [
    // Outgoing node:http calls only; incoming requests are `traceRequests`' (see there why).
    // Calls marked `untracedRequest` (tenant webhooks) are left alone.
    new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, ignoreOutgoingRequestHook: isUntracedRequest }),
    // fetch and undici: forwards and service-to-service calls are client spans that carry the trace.
    new UndiciInstrumentation(),
    new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
    // Trace ids are added to log lines by our own logger mixin; this only avoids duplicates.
    new PinoInstrumentation({ disableLogCorrelation: true }),
  ];
  return instrumentations;
}

/** The modules the instrumentations patch (for the ESM loader hook's include list). */
export function instrumentedModules(): string[] {
  return [...new Set(theInstrumentations().flatMap((instrumentation) => instrumentation.getModuleDefinitions().map((definition) => definition.name)))];
}

/**
 * Starts tracing and metrics for the process. Spans are always created (so logs carry trace ids
 * and the bus propagates context) and sampled by the standard `OTEL_TRACES_SAMPLER` variables;
 * they are exported over OTLP only when an endpoint is configured (see `theInstrumentations` for
 * which). Metrics are always readable in Prometheus form (`metricsHandler`), and exported over
 * OTLP only with an endpoint.
 */
export function startTelemetry(): void {
  if (sdk) return;
  const config = parseConfig(telemetryConfigSchema);
  prometheus = new PrometheusExporter({ preventServerStart: true });
  const metricReaders: MetricReader[] = [prometheus];
  if (config.OTEL_EXPORTER_OTLP_ENDPOINT && config.OTEL_METRICS_EXPORTER !== 'none') {
    const json = (config.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? config.OTEL_EXPORTER_OTLP_PROTOCOL) === 'http/json';
    const exporter = json ? new OTLPJsonMetricExporter() : new OTLPProtoMetricExporter();
    metricReaders.push(new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: config.OTEL_METRIC_EXPORT_INTERVAL }));
  }
  sdk = new NodeSDK({
    serviceName: config.OTEL_SERVICE_NAME,
    // With an endpoint, the SDK builds the trace exporter from the standard variables (OTLP over
    // HTTP, protobuf unless OTEL_EXPORTER_OTLP_PROTOCOL says http/json) with a batch processor.
    spanProcessors: config.OTEL_EXPORTER_OTLP_ENDPOINT ? undefined : [keepSpansLocal],
    metricReaders,
    instrumentations: theInstrumentations(),
  });
  sdk.start();
}

/**
 * Serves the process's metrics in Prometheus text format (mounted at `/metrics` on an internal
 * listener). Before telemetry starts (tests that build apps in-process) it answers an empty page.
 */
export function metricsHandler(req: IncomingMessage, res: ServerResponse): void {
  if (!prometheus) {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end('');
    return;
  }
  prometheus.getMetricsRequestHandler(req, res);
}

/**
 * Flushes pending spans and metrics on graceful shutdown, but never waits longer than
 * `deadlineMs` for an exporter whose collector is slow or gone (a collector that is up takes
 * milliseconds; one that is gone keeps the exporter retrying until the deadline, record 0026).
 */
export async function shutdownTelemetry(deadlineMs = 500): Promise<void> {
  const running = sdk;
  sdk = undefined;
  prometheus = undefined;
  if (!running) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    running.shutdown().catch(() => undefined),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, deadlineMs);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}
