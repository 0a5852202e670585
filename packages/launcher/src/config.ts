import { commonConfigSchema, cursorSecretSchema, optionalUrl, parseConfig, port, emptyToUndefined } from '@connectivity/platform';
import { LAUNCHER_CREDENTIAL_VARIABLES } from './credential-variables.ts';
import { randomBytes } from 'node:crypto';
import { resolveSecretKey } from '@connectivity/notifications';
import { z } from 'zod';

const optionalText = z.preprocess(emptyToUndefined, z.string().optional());

/** What the launcher itself reads; each service still parses its own variables. */
export const launcherConfigSchema = commonConfigSchema.extend({
  /** The gateway's port; the distributed form puts the services on PORT + 1 … + 4. */
  PORT: port(8080),
  /** The address the gateway listens on. */
  HOST: z.string().default('0.0.0.0'),
  /** Signs list cursors; made up per run when unset (set it to keep cursors valid across restarts). */
  CURSOR_SECRET: cursorSecretSchema,
  /** Seals webhook signing secrets at rest (64 hex characters); kept in DATA_DIR for a local run when unset. */
  WEBHOOK_SECRET_KEY: z.preprocess(emptyToUndefined, z.string().optional()),
  /** The test key of the dev account made at start (`sk_test_…`); generated when unset. */
  DEV_TEST_KEY: z.string().startsWith('sk_test_').optional(),
  /** The live key of the dev account made at start (`sk_live_…`); generated when unset. */
  DEV_LIVE_KEY: z.string().startsWith('sk_live_').optional(),
  /** Start the fake of this vendor in-process and make it the live supplier (`airalo` or `esim-go`). */
  FAKE_SUPPLIER: z.preprocess(emptyToUndefined, z.enum(['airalo', 'esim-go']).optional()),
  /** The port of the in-process vendor fake (FAKE_SUPPLIER). */
  FAKE_SUPPLIER_PORT: port(8099),
  /**
   * `pnpm start:distributed`: where the four services listen (their peers and the gateway reach
   * them on this machine); the gateway listens on HOST.
   */
  SERVICES_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * The migrations (`pnpm migrate`) grant each service's runtime login `<prefix><schema>` the use
   * of its schema (e.g. `connectivity_` → `connectivity_inventory`); unset: no grants, every
   * service uses DATABASE_URL's login (docs/decisions/0224-a-database-login-per-service.md).
   */
  DATABASE_RUNTIME_ROLE_PREFIX: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^[a-z_][a-z0-9_]*$/, 'lower-case letters, digits and _')
      .optional(),
  ),
  /** The bearer token of the gateway's admin listener (`pnpm cli`); generated for a local run when unset, required in production. */
  ADMIN_TOKEN: optionalText,
  // `pnpm start:distributed`: each caller's internal token, each service's database login and
  // each NATS user's password (distributed-env.ts; made up in development, required in production).
  ...Object.fromEntries(LAUNCHER_CREDENTIAL_VARIABLES.map((name) => [name, name.endsWith('_DATABASE_URL') ? optionalUrl : optionalText])),
});

export type LauncherConfig = z.infer<typeof launcherConfigSchema>;

/** One of LAUNCHER_CREDENTIAL_VARIABLES as parsed (their names are made from the lists of callers and services). */
export const credentialOf = (config: LauncherConfig, name: string): string | undefined => (config as Record<string, unknown>)[name] as string | undefined;

export const loadLauncherConfig = (env: NodeJS.ProcessEnv = process.env): LauncherConfig => parseConfig(launcherConfigSchema, env);

/** The environment as the launcher's child services see it (the one place here that reads it). */
export const processEnv = (): NodeJS.ProcessEnv => ({ ...process.env });

/**
 * The environment every service of a local run starts with: the caller's, plus the secrets the
 * services must share (made up when unset, since one process tree shares them).
 */
export function serviceEnvironment(config: LauncherConfig): NodeJS.ProcessEnv {
  const env = processEnv();
  // Each process reads only its own credentials: the launcher's list of all of them stays here.
  for (const name of LAUNCHER_CREDENTIAL_VARIABLES) delete env[name];
  return {
    ...env,
    INTERNAL_TOKEN: config.INTERNAL_TOKEN ?? randomBytes(32).toString('base64url'),
    // Set CURSOR_SECRET to keep list cursors valid across restarts.
    CURSOR_SECRET: config.CURSOR_SECRET ?? randomBytes(32).toString('base64url'),
    // Webhook signing secrets are sealed with this key; unset, it is kept in DATA_DIR, so a local
    // run can restart on the same database (production sets it explicitly).
    WEBHOOK_SECRET_KEY: config.WEBHOOK_SECRET_KEY ?? resolveSecretKey({ DATA_DIR: config.DATA_DIR }).toString('hex'),
    // Error links point at the port actually served unless a public URL is configured.
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || `http://localhost:${config.PORT}`,
  };
}
