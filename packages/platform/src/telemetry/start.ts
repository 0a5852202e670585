import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KnexInstrumentation } from '@opentelemetry/instrumentation-knex';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { PinoInstrumentation } from '@opentelemetry/instrumentation-pino';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { parseConfig, telemetryConfigSchema } from '../config.ts';

let sdk: NodeSDK | undefined;

type SpanProcessor = NonNullable<NodeSDKConfiguration['spanProcessors']>[number];

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

/**
 * Starts tracing for the process. Spans are always created (so logs carry trace ids and the
 * bus propagates context); they are exported over OTLP only when an endpoint is configured.
 */
export function startTelemetry(): void {
  if (sdk) return;
  const config = parseConfig(telemetryConfigSchema);
  sdk = new NodeSDK({
    serviceName: config.OTEL_SERVICE_NAME,
    traceExporter: config.OTEL_EXPORTER_OTLP_ENDPOINT ? new OTLPTraceExporter() : undefined,
    spanProcessors: config.OTEL_EXPORTER_OTLP_ENDPOINT ? undefined : [keepSpansLocal],
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz' }),
      new ExpressInstrumentation(),
      // fetch: the gateway's forwards and the services' typed clients get client spans.
      new UndiciInstrumentation(),
      new PgInstrumentation(),
      new KnexInstrumentation(),
      // Trace ids are added to log lines by our own logger mixin; this only avoids duplicates.
      new PinoInstrumentation({ disableLogCorrelation: true }),
    ],
  });
  sdk.start();
}

/** Flushes pending spans; called on graceful shutdown. */
export async function shutdownTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
