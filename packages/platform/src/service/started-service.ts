import type { Express } from 'express';
import type { Logger } from '../logger.ts';
import type { BackgroundWork, ServiceConfig, ServiceDefinition, ServiceRuntime, Stoppable } from './types.ts';

/** A service built from its definition: its app, its context, and its background work. */
export interface StartedService<Context = unknown> {
  app: Express;
  context: Context;
  /**
   * Starts the declared workers, then the consumers, each in the order listed (once the server
   * listens). If one fails to start, what started is stopped and the error thrown.
   */
  startBackground(): Promise<void>;
  /** Stops the consumers (no new work comes in), then the workers in the reverse of their order. */
  stop(): Promise<void>;
}

/** Builds a service's context and app; its background work starts when asked (`startBackground`). */
export async function buildService<C extends ServiceConfig, Context>(
  definition: ServiceDefinition<C, Context>,
  runtime: ServiceRuntime,
  config: C,
): Promise<StartedService<Context>> {
  const context = await definition.context(runtime, config);
  const app = definition.app(context);
  const workers: { name: string; running: Stoppable }[] = [];
  const consumers: { name: string; running: Stoppable }[] = [];

  const startAll = async (list: readonly BackgroundWork<Context>[] | undefined, into: typeof workers) => {
    for (const work of list ?? []) into.push({ name: work.name, running: await work.start(context) });
  };
  const stopAll = async (logger: Logger) => {
    const inOrder = [...consumers, ...[...workers].reverse()];
    consumers.length = 0;
    workers.length = 0;
    const failures: unknown[] = [];
    for (const { name, running } of inOrder) {
      try {
        await running.stop();
      } catch (error) {
        // The others still stop; the failures are reported once they have.
        logger.error({ err: error, work: name }, 'stopping background work failed');
        failures.push(error);
      }
    }
    if (failures.length > 0) throw new AggregateError(failures, 'stopping background work failed');
  };

  return {
    app,
    context,
    async startBackground() {
      try {
        await startAll(definition.workers, workers);
        await startAll(definition.consumers, consumers);
      } catch (error) {
        await stopAll(runtime.logger).catch(() => undefined);
        throw error;
      }
      runtime.logger.debug({ workers: workers.map((w) => w.name), consumers: consumers.map((c) => c.name) }, `${definition.name} background work started`);
    },
    stop: () => stopAll(runtime.logger),
  };
}

/** `buildService` with its background work started: a service as a test or a tool runs it in process. */
export async function startService<C extends ServiceConfig, Context>(
  definition: ServiceDefinition<C, Context>,
  runtime: ServiceRuntime,
  config: C,
): Promise<StartedService<Context>> {
  const started = await buildService(definition, runtime, config);
  await started.startBackground();
  return started;
}
