import { ConfigError, cursorSecretSchema, loadServiceConfig, optionalUrl, resolveCursorSecret, serviceConfigSchema } from '@connectivity/platform';
import { z } from 'zod';

const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

/** catalogue's environment, parsed once at boot (the platform's common variables + its own). */
export const configSchema = serviceConfigSchema(8081).extend({
  /** Signs list cursors; shared by every instance (see the platform's pagination). */
  CURSOR_SECRET: cursorSecretSchema,
  /** The live wholesale supplier's API; unset: live catalogue and orders answer 503. */
  SUPPLIER_URL: optionalUrl,
  SUPPLIER_API_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  SUPPLIER_TIMEOUT_MS: positiveInt(5_000),
  SUPPLIER_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  SUPPLIER_BREAKER_THRESHOLD: positiveInt(5),
  SUPPLIER_BREAKER_COOLDOWN_MS: positiveInt(30_000),
  /** Our margin over the supplier's wholesale cost, in percent. */
  SUPPLIER_MARGIN_PERCENT: z.coerce.number().min(0).max(1_000).default(30),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const config = loadServiceConfig(configSchema, env);
  if (config.SUPPLIER_URL && !config.SUPPLIER_API_KEY) throw new ConfigError('SUPPLIER_API_KEY is required with SUPPLIER_URL.');
  return { ...config, CURSOR_SECRET: resolveCursorSecret(config) };
}
