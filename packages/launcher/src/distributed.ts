import { spawnSync } from 'node:child_process';
import { ConfigError, createLogger } from '@connectivity/platform';
import { loadLauncherConfig } from './config.ts';
import { provisionDevAccount } from './dev-account.ts';
import { distributedEnvironment } from './distributed-env.ts';
import { PORT_OFFSET, URL_VARIABLE, allServices } from './services.ts';
import { ROOT, Supervisor } from './supervisor.ts';

/**
 * `pnpm start:distributed`: the gateway and each service as its own process against
 * DATABASE_URL and NATS_URL, exactly as the containers of docker-compose.yml run them. A service
 * that fails to start stops the launch with its own error; one that dies later is restarted
 * (with backoff) while the others keep serving, as an orchestrator would.
 */
const config = loadLauncherConfig();
if (!config.DATABASE_URL || !config.NATS_URL) {
  throw new ConfigError('The distributed form needs DATABASE_URL (PostgreSQL) and NATS_URL (NATS with JetStream).');
}
const logger = createLogger({ name: 'launcher', level: config.LOG_LEVEL });

const { common: env, own, migrate } = distributedEnvironment(config);
const portOf = (name: string) => config.PORT + (PORT_OFFSET[name] ?? 0);
const servicesHost = ['0.0.0.0', '::'].includes(config.SERVICES_HOST) ? '127.0.0.1' : config.SERVICES_HOST;
const hostInUrl = servicesHost.includes(':') ? `[${servicesHost}]` : servicesHost;
for (const [name, variable] of Object.entries(URL_VARIABLE)) env[variable] = `http://${hostInUrl}:${portOf(name)}`;

if (spawnSync(process.execPath, ['packages/launcher/src/migrate.ts'], { cwd: ROOT, env: migrate, stdio: 'inherit' }).status !== 0) {
  logger.fatal('migrations failed');
  process.exit(1);
}
if (config.DEV_TEST_KEY || config.DEV_LIVE_KEY) await provisionDevAccount(config, logger);

const supervisor = new Supervisor({ env, logger, restartOnExit: true });
let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await supervisor.stopAll();
  process.exit(code);
}
process.once('SIGTERM', () => void stop(0));
process.once('SIGINT', () => void stop(0));

for (const service of allServices) {
  try {
    await supervisor.start({ service: service.name, name: service.name, port: portOf(service.name), env: own[service.name] });
  } catch (error) {
    logger.fatal({ service: service.name, err: error instanceof Error ? error.message : String(error) }, 'a service failed to start; stopping');
    await stop(1);
  }
}
