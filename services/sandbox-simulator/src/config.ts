import { loadServiceConfig, serviceConfigSchema } from '@connectivity/platform';
import { z } from 'zod';

/** sandbox-simulator's environment, parsed once at boot (the platform's common variables + its own). */
export const configSchema = serviceConfigSchema(8083).extend({
  /** Where inventory's internal API answers; usage is recorded there. */
  INVENTORY_URL: z.string().url().default('http://127.0.0.1:8082'),
  /** How long a call to inventory may take before the request fails. */
  INVENTORY_TIMEOUT_MS: z.coerce.number().int().min(1).default(10_000),
});

export type Config = ReturnType<typeof loadConfig>;

export const loadConfig = (env: NodeJS.ProcessEnv = process.env) => loadServiceConfig(configSchema, env);
