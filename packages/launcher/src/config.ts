import { commonConfigSchema, cursorSecretSchema, parseConfig, port } from '@connectivity/platform';
import { randomBytes } from 'node:crypto';
import { resolveSecretKey } from '@connectivity/notifications';
import { z } from 'zod';

/** What the launcher itself reads; each service still parses its own variables. */
export const launcherConfigSchema = commonConfigSchema.extend({
  PORT: port(8080),
  HOST: z.string().default('0.0.0.0'),
  CURSOR_SECRET: cursorSecretSchema,
  WEBHOOK_SECRET_KEY: z.preprocess((value) => (value === '' ? undefined : value), z.string().optional()),
  DEV_TEST_KEY: z.string().startsWith('sk_test_').optional(),
  DEV_LIVE_KEY: z.string().startsWith('sk_live_').optional(),
  /** Start the fake of this vendor in-process and make it the live supplier (`airalo` or `esim-go`). */
  FAKE_SUPPLIER: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['airalo', 'esim-go']).optional()),
  FAKE_SUPPLIER_PORT: port(8099),
});

export type LauncherConfig = z.infer<typeof launcherConfigSchema>;

export const loadLauncherConfig = (env: NodeJS.ProcessEnv = process.env): LauncherConfig => parseConfig(launcherConfigSchema, env);

/** The environment as the launcher's child services see it (the one place here that reads it). */
export const processEnv = (): NodeJS.ProcessEnv => ({ ...process.env });

/**
 * The environment every service of a local run starts with: the caller's, plus the secrets the
 * services must share (made up when unset, since one process tree shares them).
 */
export function serviceEnvironment(config: LauncherConfig): NodeJS.ProcessEnv {
  const env = processEnv();
  return {
    ...env,
    INTERNAL_TOKEN: config.INTERNAL_TOKEN ?? randomBytes(24).toString('base64url'),
    // Set CURSOR_SECRET to keep list cursors valid across restarts.
    CURSOR_SECRET: config.CURSOR_SECRET ?? randomBytes(32).toString('base64url'),
    // Webhook signing secrets are sealed with this key; unset, it is kept in DATA_DIR, so a local
    // run can restart on the same database (production sets it explicitly).
    WEBHOOK_SECRET_KEY: config.WEBHOOK_SECRET_KEY ?? resolveSecretKey({ DATA_DIR: config.DATA_DIR }).toString('hex'),
    // Error links point at the port actually served unless a public URL is configured.
    PUBLIC_BASE_URL: env.PUBLIC_BASE_URL || `http://localhost:${config.PORT}`,
  };
}
