import { metrics, type Attributes } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';

export interface MetricsCapture {
  /** The value of a counter's or gauge's point whose attributes include `attributes`; undefined when there is none. */
  value(name: string, attributes?: Attributes): Promise<number | undefined>;
  /** Removes the capture's meter provider: the metrics go back to the API's no-ops. */
  stop(): Promise<void>;
}

/**
 * The process's metrics read in memory, for tests: a meter provider set as the global one, which the
 * domain metrics pick up on their next use (they are made again when the provider changed).
 */
export function captureMetrics(): MetricsCapture {
  const reader = new PeriodicExportingMetricReader({
    exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
    exportIntervalMillis: 3_600_000,
  });
  const provider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(provider);
  return {
    async value(name, attributes = {}) {
      const { resourceMetrics } = await reader.collect();
      for (const metric of resourceMetrics.scopeMetrics.flatMap((scope) => scope.metrics)) {
        if (metric.descriptor.name !== name) continue;
        const point = metric.dataPoints.find((p) => Object.entries(attributes).every(([key, value]) => p.attributes[key] === value));
        if (point && typeof point.value === 'number') return point.value;
      }
      return undefined;
    },
    async stop() {
      metrics.disable();
      await provider.shutdown();
    },
  };
}
