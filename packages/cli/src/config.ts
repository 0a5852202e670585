import path from 'node:path';
import { z } from 'zod';

const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);

/** The operator CLI's environment: where the admin API is, or where a local gateway wrote it. */
export const cliConfigSchema = z.object({
  /** Both set: talk to this admin API (e.g. a deployed gateway reached through a tunnel). */
  ADMIN_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  ADMIN_TOKEN: z.preprocess(emptyToUndefined, z.string().min(1).optional()),
  /** Otherwise: the data directory of a running `pnpm start`, holding admin.json. */
  DATA_DIR: z.string().min(1).default('./.data'),
  /** `listen`: the public API, the integrator's test key, and a signing secret to keep across runs. */
  CONNECTIVITY_BASE_URL: z.preprocess(emptyToUndefined, z.string().default('http://localhost:8080')),
  CONNECTIVITY_KEY: z.preprocess(emptyToUndefined, z.string().min(1).optional()),
  CONNECTIVITY_WEBHOOK_SECRET: z.preprocess(emptyToUndefined, z.string().startsWith('whsec_').optional()),
});

export type CliConfig = z.infer<typeof cliConfigSchema>;

export function loadCliConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const config = cliConfigSchema.parse(env);
  return { ...config, DATA_DIR: path.resolve(config.DATA_DIR) };
}
