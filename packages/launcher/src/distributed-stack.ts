import { randomBytes } from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { InternalCaller } from '@connectivity/contracts';
import { createBus, createLogger, grantSchemaToRole, runMigrations, type Logger } from '@connectivity/platform';
import { deleteStreams } from '@connectivity/platform/testing';
import { BUS_USERS } from './bus-users.ts';
import { credentialEnvironment, freshCallerTokens } from './internal-credentials.ts';
import { authorizationConf } from './nats-conf.ts';
import { startNatsServer, type NatsServer } from './nats-server.ts';
import { freePort } from './ports.ts';
import { allServices, URL_VARIABLE } from './services.ts';
import { Supervisor, type SupervisedService } from './supervisor.ts';

export { freePort, freePortBlock } from './ports.ts';

export interface DistributedStackOptions {
  /** PostgreSQL server; a database of the stack's own is created on it and dropped at close. */
  databaseUrl: string;
  natsUrl: string;
  /** Instances of each deployable (default 1 each). */
  instances?: Partial<Record<string, number>>;
  /** Extra environment for every process. */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per deployable. */
  envOf?: Partial<Record<string, NodeJS.ProcessEnv>>;
  stdio?: 'inherit' | 'ignore';
  logger?: Logger;
  /**
   * A NATS server of the stack's own (the nats-server binary, `natsServer`), which asks every
   * process for its user and password and gives each the permissions of bus-users.ts, instead
   * of `natsUrl` (a shared server asks for none).
   */
  securedBus?: boolean;
  natsServer?: string;
}

export interface DistributedStack {
  /** Each gateway instance's public URL, in instance order. */
  gatewayUrls: string[];
  /** Each gateway instance's admin URL and the admin token. */
  adminUrls: string[];
  adminToken: string;
  /** The stack's own database (not the server's default one). */
  knex: Knex;
  databaseUrl: string;
  supervisor: Supervisor;
  /** Instance names per deployable, e.g. `{ inventory: ['inventory-1', 'inventory-2'] }`. */
  names: Record<string, string[]>;
  /** Each instance's own URL per deployable, in instance order (e.g. to scrape its `/metrics`). */
  serviceUrls: Record<string, string[]>;
  /** The environment every process was started with. */
  env: NodeJS.ProcessEnv;
  /** Each internal caller's token (the gateway's forward, its admin listener, inventory, the simulator). */
  callerTokens: Record<InternalCaller, string>;
  /** The token `/metrics` asks for. */
  metricsToken: string;
  /** Each deployable's own database URL: its login, which may use its schema alone. */
  databaseUrls: Record<string, string>;
  /** The stack's own NATS server and each user's password, with `securedBus`. */
  bus?: { url: string; passwords: Record<string, string> };
  close(): Promise<void>;
}

/**
 * The distributed form for tests and benches: one process per service instance (several per
 * deployable if asked, each with its own port; the first instance of each is what its peers
 * call), on a PostgreSQL database and NATS stream names of its own, so stacks never see each
 * other's rows or events.
 */
export async function startDistributedStack(options: DistributedStackOptions): Promise<DistributedStack> {
  const logger = options.logger ?? createLogger({ name: 'distributed-stack', level: 'warn' });
  const unique = randomBytes(5).toString('hex');
  const databaseName = `dist_${unique}`;
  const admin = knexFactory({ client: 'pg', connection: options.databaseUrl, pool: { min: 0, max: 1 } });
  await admin.raw('create database ??', [databaseName]);
  const url = new URL(options.databaseUrl);
  url.pathname = `/${databaseName}`;
  const databaseUrl = url.toString();
  // The migrations run under the server's login (the owner); each service gets a login of its
  // own that may use its schema alone, as in production (record 0224). Logins are the server's,
  // not the database's: named for the stack, dropped with it.
  const roleOf = (schema: string) => `${databaseName}_${schema}`;
  const databaseUrls: Record<string, string> = {};
  for (const service of allServices) {
    const role = roleOf(service.migrations.schema);
    await admin.raw('create role ?? login', [role]);
    const own = new URL(databaseUrl);
    own.username = role;
    own.password = '';
    databaseUrls[service.name] = own.toString();
  }
  const knex = knexFactory({ client: 'pg', connection: databaseUrl, pool: { min: 0, max: 4 } });
  for (const service of allServices) {
    await runMigrations(knex, service.migrations);
    await grantSchemaToRole(knex, service.migrations.schema, roleOf(service.migrations.schema));
  }

  const streamName = `DIST_${unique.toUpperCase()}`;
  const busNames = { stream: streamName, subjectPrefix: `d${unique}.`, durablePrefix: `d${unique}-` };
  let natsServer: NatsServer | undefined;
  let bus: DistributedStack['bus'];
  if (options.securedBus) {
    const passwords = Object.fromEntries(BUS_USERS.map((user) => [user, randomBytes(32).toString('hex')]));
    natsServer = await startNatsServer(
      authorizationConf((user) => JSON.stringify(passwords[user]), busNames),
      options.natsServer,
    );
    bus = { url: natsServer.url, passwords };
    // The streams are the migrations' to make: the services' users may only read them.
    const migrate = await createBus({
      natsUrl: natsServer.url,
      streamName,
      subjectPrefix: busNames.subjectPrefix,
      name: 'migrate',
      credentials: { user: 'migrate', password: passwords.migrate },
    });
    await migrate.close();
  }
  const natsUrl = natsServer?.url ?? options.natsUrl;
  const adminToken = randomBytes(32).toString('base64url');
  const callerTokens = freshCallerTokens();
  const metricsToken = randomBytes(32).toString('base64url');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    NATS_URL: natsUrl,
    NATS_STREAM: streamName,
    NATS_SUBJECT_PREFIX: busNames.subjectPrefix,
    NATS_DURABLE_PREFIX: busNames.durablePrefix,
    CURSOR_SECRET: randomBytes(32).toString('base64url'),
    WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
    ADMIN_TOKEN: adminToken,
    METRICS_TOKEN: metricsToken,
    ADMIN_HOST: '127.0.0.1',
    // The services are reached by their peers on this machine alone.
    HOST: '127.0.0.1',
    DATA_DIR: 'memory://',
    REDIS_KEY_PREFIX: `dist:${unique}`,
    LOG_LEVEL: 'warn',
    OTEL_METRICS_EXPORTER: 'none',
    ...options.env,
  };
  // Each deployable's own: its database login, its NATS user, its tokens and its callers' digests.
  const ownEnv = (deployable: string): NodeJS.ProcessEnv => ({
    DATABASE_URL: databaseUrls[deployable],
    ...credentialEnvironment(deployable, callerTokens),
    ...(bus && { NATS_USER: deployable, NATS_PASSWORD: bus.passwords[deployable] }),
  });

  // Every instance gets its port first; instance i of a caller then calls instance i of each peer
  // (modulo their count), so the load through two gateways spreads over two of everything.
  const names: Record<string, string[]> = {};
  const specs: SupervisedService[] = [];
  const portsOf: Record<string, number[]> = {};
  for (const service of allServices) {
    const count = options.instances?.[service.name] ?? 1;
    names[service.name] = [];
    portsOf[service.name] = [];
    for (let i = 1; i <= count; i += 1) {
      names[service.name]?.push(count === 1 ? service.name : `${service.name}-${i}`);
      portsOf[service.name]?.push(await freePort());
    }
  }
  const gatewayUrls: string[] = [];
  const adminUrls: string[] = [];
  for (const service of allServices) {
    for (const [index, name] of (names[service.name] ?? []).entries()) {
      const port = portsOf[service.name]?.[index] ?? 0;
      const peers: NodeJS.ProcessEnv = {};
      for (const [peer, variable] of Object.entries(URL_VARIABLE)) {
        const ports = portsOf[peer] ?? [];
        peers[variable] = `http://127.0.0.1:${ports[index % ports.length]}`;
      }
      const spec: SupervisedService = {
        service: service.name,
        name,
        port,
        env: { ...ownEnv(service.name), ...peers, ...options.envOf?.[service.name], ...(name !== service.name && options.envOf?.[name]) },
      };
      if (service.name === 'gateway') {
        const adminPort = await freePort();
        spec.env = { ...spec.env, ADMIN_PORT: String(adminPort) };
        gatewayUrls.push(`http://127.0.0.1:${port}`);
        adminUrls.push(`http://127.0.0.1:${adminPort}`);
      }
      specs.push(spec);
    }
  }

  const supervisor = new Supervisor({ env, logger, stdio: options.stdio ?? 'inherit' });
  const close = async () => {
    await supervisor.stopAll();
    await knex.destroy();
    await admin.raw('drop database if exists ?? with (force)', [databaseName]);
    for (const service of allServices) await admin.raw('drop role if exists ??', [roleOf(service.migrations.schema)]);
    await admin.destroy();
    if (natsServer) await natsServer.close();
    else await deleteStreams(options.natsUrl, [streamName, `${streamName}_DEAD`]);
  };
  try {
    // In dependency order (a service after the peers it calls), instances of one deployable together.
    for (const service of allServices) {
      await Promise.all(specs.filter((spec) => spec.service === service.name).map((spec) => supervisor.start(spec)));
    }
  } catch (error) {
    await close();
    throw error;
  }
  const serviceUrls = Object.fromEntries(Object.entries(portsOf).map(([service, ports]) => [service, ports.map((port) => `http://127.0.0.1:${port}`)]));
  return { gatewayUrls, adminUrls, adminToken, knex, databaseUrl, supervisor, names, serviceUrls, env, callerTokens, metricsToken, databaseUrls, bus, close };
}
