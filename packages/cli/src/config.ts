import { DEFAULT_DATA_DIR, emptyToUndefined } from '@connectivity/platform';
import path from 'node:path';
import { z } from 'zod';

/** The operator CLI's environment: where the admin API is, or where a local gateway wrote it. */
export const cliConfigSchema = z.object({
  /** Both set: talk to this admin API (e.g. a deployed gateway reached through a tunnel). */
  ADMIN_URL: z.preprocess(emptyToUndefined, z.string().url().optional()),
  ADMIN_TOKEN: z.preprocess(emptyToUndefined, z.string().min(1).optional()),
  /** Otherwise: the data directory of a running `pnpm start`, holding admin.json. */
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  /** The public API, for the commands an integrator runs with their own key (`listen`, `logs`, `events`, `trigger`). */
  CONNECTIVITY_API_URL: z.preprocess(emptyToUndefined, z.string().url().default('http://localhost:8080')),
  /** The integrator's key; without it, the test key of a running `pnpm start` (DATA_DIR/dev-keys.json). */
  CONNECTIVITY_API_KEY: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .regex(/^sk_(test|live)_/, 'must be an API key (sk_test_... or sk_live_...)')
      .optional(),
  ),
  /** `listen`: the signing secret of its local deliveries, to keep one across runs (else new each run). */
  CONNECTIVITY_WEBHOOK_SECRET: z.preprocess(emptyToUndefined, z.string().startsWith('whsec_').optional()),
});

export type CliConfig = z.infer<typeof cliConfigSchema>;

export function loadCliConfig(env: NodeJS.ProcessEnv = process.env): CliConfig {
  const config = cliConfigSchema.parse(env);
  return { ...config, DATA_DIR: path.resolve(config.DATA_DIR) };
}
