import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ConfigError, createLogger } from '@connectivity/platform';
import { loadLauncherConfig, serviceEnvironment } from './config.ts';
import { PORT_OFFSET, URL_VARIABLE, allServices } from './services.ts';
import { provisionDevAccount } from './dev-account.ts';
import { waitUntilReady } from './wait-ready.ts';

/**
 * `pnpm start:distributed`: the gateway and each service as its own process against
 * DATABASE_URL and NATS_URL, exactly as the containers of docker-compose.yml run them
 * (`node --import <telemetry> src/main.ts` in the package folder).
 */
const config = loadLauncherConfig();
if (!config.DATABASE_URL || !config.NATS_URL) {
  throw new ConfigError('The distributed form needs DATABASE_URL (PostgreSQL) and NATS_URL (NATS with JetStream).');
}
const logger = createLogger({ name: 'launcher', level: config.LOG_LEVEL });
const root = fileURLToPath(new URL('../../../', import.meta.url));
const node = process.execPath;

const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv): ChildProcess =>
  spawn(node, args, { cwd, env, stdio: 'inherit' });

const exitCode = (child: ChildProcess) => new Promise<number>((resolve) => child.once('exit', (code) => resolve(code ?? 1)));

const env = serviceEnvironment(config);
const portOf = (name: string) => config.PORT + (PORT_OFFSET[name] ?? 0);
for (const [name, variable] of Object.entries(URL_VARIABLE)) env[variable] = `http://127.0.0.1:${portOf(name)}`;

if ((await exitCode(run(['packages/launcher/src/migrate.ts'], root, env))) !== 0) throw new Error('migrations failed');
if (config.DEV_TEST_KEY || config.DEV_LIVE_KEY) await provisionDevAccount(config, logger);

const children: ChildProcess[] = [];
for (const service of allServices) {
  const folder = service.name === 'gateway' ? 'gateway' : `services/${service.name}`;
  const port = portOf(service.name);
  const child = run(['--import', '@connectivity/platform/telemetry/register', 'src/main.ts'], `${root}${folder}`, {
    ...env,
    PORT: String(port),
    OTEL_SERVICE_NAME: service.name,
  });
  children.push(child);
  child.once('exit', (code) => {
    if (!stopping) {
      logger.error({ service: service.name, code }, 'service exited; stopping the others');
      void stop(1);
    }
  });
  await waitUntilReady(`http://127.0.0.1:${port}/readyz`);
  logger.info({ service: service.name, port }, 'ready');
}

let stopping = false;
async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(children.map((child) => (child.exitCode === null ? (child.kill('SIGTERM'), exitCode(child)) : Promise.resolve(0))));
  process.exit(code);
}
process.once('SIGTERM', () => void stop(0));
process.once('SIGINT', () => void stop(0));
