import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildService, closeServer, listen, runMigrations, type ServiceRuntime, type StartedService } from '@connectivity/platform';
import { allServices, URL_VARIABLE } from './services.ts';

export interface ComposeOptions {
  runtime: ServiceRuntime;
  /** The environment every service parses its config from (secrets already filled in). */
  env: NodeJS.ProcessEnv;
  port: number;
  host: string;
  /**
   * Run once the gateway's tables exist, before it takes a request: what must be in place when the
   * public port first answers (`pnpm start`'s dev account, so /readyz 200 means its keys work).
   */
  beforeGatewayListens?: () => Promise<void>;
}

export interface Composition {
  gatewayUrl: string;
  stop(): Promise<void>;
}

/**
 * Starts every service on one database and bus, each on its own loopback port, in dependency
 * order, and the gateway last on the public port; the gateway reaches them over HTTP exactly as
 * in the distributed form. Used by `pnpm start` and by the end-to-end tests.
 */
export async function startComposition({ runtime, env: baseEnv, port, host, beforeGatewayListens }: ComposeOptions): Promise<Composition> {
  // One process serves every gateway request here: its own memory counts the rate limit exactly,
  // unless a shared Redis is configured. The sandbox runs on the integrator's own machine, whose
  // receiver is on localhost: test webhooks may reach private addresses unless the caller says no.
  const env: NodeJS.ProcessEnv = { RATE_LIMIT_STORE: baseEnv.REDIS_URL ? 'redis' : 'memory', WEBHOOK_ALLOW_PRIVATE: '1', ...baseEnv };
  const started: StartedService[] = [];
  const servers: Server[] = [];
  let gatewayUrl = '';
  for (const service of allServices) {
    const isGateway = service.name === 'gateway';
    const config = service.loadConfig({ ...env, PORT: String(isGateway ? port : 0), HOST: isGateway ? host : '127.0.0.1' });
    await runMigrations(runtime.db.knex, service.migrations);
    if (isGateway) await beforeGatewayListens?.();
    const running = await buildService(service, { ...runtime, logger: runtime.logger.child({ service: service.name }) }, config);
    started.push(running);
    const server = await listen(running.app, config.PORT, config.HOST);
    servers.push(server);
    await running.startBackground();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const variable = URL_VARIABLE[service.name];
    if (variable) env[variable] = url;
    if (isGateway) gatewayUrl = url;
  }
  return {
    gatewayUrl,
    async stop() {
      // The gateway closes first so no new work arrives, then each service's background work stops.
      for (const server of [...servers].reverse()) await closeServer(server);
      for (const running of [...started].reverse()) await running.stop();
    },
  };
}
