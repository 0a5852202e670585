import { randomBytes } from 'node:crypto';
import { INTERNAL_CALLERS, type InternalCaller } from '@connectivity/contracts';
import { assertStrongSecrets, ConfigError } from '@connectivity/platform';
import { BUS_USERS } from './bus-users.ts';
import { credentialOf, serviceEnvironment, type LauncherConfig } from './config.ts';
import { databaseUrlVariableOf, natsPasswordVariableOf, tokenVariableOf } from './credential-variables.ts';
import { credentialEnvironment } from './internal-credentials.ts';
import { allServices } from './services.ts';

export interface DistributedEnvironment {
  /** What every process starts with. */
  common: NodeJS.ProcessEnv;
  /** Each deployable's own on top: its database login, NATS user, tokens, callers, address. */
  own: Record<string, NodeJS.ProcessEnv>;
  /** The migrations': the owner login, the runtime logins' prefix, the NATS user that makes the streams. */
  migrate: NodeJS.ProcessEnv;
}

/** The secrets a production launch refuses to start without (and never makes up or keeps on disk). */
function requiredInProduction(config: LauncherConfig): string[] {
  const names = ['CURSOR_SECRET', 'WEBHOOK_SECRET_KEY', 'ADMIN_TOKEN', 'METRICS_TOKEN', 'DATABASE_RUNTIME_ROLE_PREFIX'];
  names.push(...INTERNAL_CALLERS.map(tokenVariableOf), ...allServices.map((service) => databaseUrlVariableOf(service.name)));
  if (config.NATS_URL) names.push(...BUS_USERS.map(natsPasswordVariableOf));
  return names;
}

/**
 * `pnpm start:distributed`'s environments, least privilege as in the containers: each caller its
 * own internal token (made up for a development run, which is one process tree), each service its
 * database login and NATS user when given (its `<SERVICE>_DATABASE_URL`, `<USER>_NATS_PASSWORD`).
 * With NODE_ENV=production every one of them must be given and strong, the webhook key too: none
 * is made up, none written to DATA_DIR (docs/decisions/0225-the-distributed-launcher-in-production.md).
 */
export function distributedEnvironment(config: LauncherConfig): DistributedEnvironment {
  const production = config.NODE_ENV === 'production';
  const value = (name: string) => credentialOf(config, name) ?? (config as Record<string, unknown>)[name];
  if (production) {
    const missing = requiredInProduction(config).filter((name) => value(name) === undefined);
    if (missing.length > 0)
      throw new ConfigError(`With NODE_ENV=production the distributed form needs its secrets: set ${missing.join(', ')} (docs/deploy.md).`);
    const secrets = [
      ...INTERNAL_CALLERS.map(tokenVariableOf),
      ...BUS_USERS.map(natsPasswordVariableOf),
      'ADMIN_TOKEN',
      'METRICS_TOKEN',
      'CURSOR_SECRET',
      'WEBHOOK_SECRET_KEY',
    ];
    assertStrongSecrets(config, secrets);
  }
  const common = serviceEnvironment(config);
  // One token per caller, never the embedded form's shared one.
  delete common.INTERNAL_TOKEN;
  const tokens = Object.fromEntries(
    INTERNAL_CALLERS.map((caller) => [caller, credentialOf(config, tokenVariableOf(caller)) ?? randomBytes(32).toString('base64url')]),
  ) as Record<InternalCaller, string>;
  const nats = (user: string): NodeJS.ProcessEnv => {
    const password = credentialOf(config, natsPasswordVariableOf(user));
    return password === undefined ? {} : { NATS_USER: user, NATS_PASSWORD: password };
  };
  const own: Record<string, NodeJS.ProcessEnv> = {};
  for (const service of allServices) {
    own[service.name] = {
      ...credentialEnvironment(service.name, tokens),
      ...nats(service.name),
      ...(credentialOf(config, databaseUrlVariableOf(service.name)) !== undefined && {
        DATABASE_URL: credentialOf(config, databaseUrlVariableOf(service.name)),
      }),
      // The gateway faces clients; the services only their peers on this machine, unless told.
      HOST: service.name === 'gateway' ? config.HOST : config.SERVICES_HOST,
    };
  }
  const migrate = { ...common, ...nats('migrate') };
  return { common, own, migrate };
}
