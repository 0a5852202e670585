import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { commonConfigSchema, ConfigError, parseConfig, port } from '../config.ts';
import { assertStrongSecrets, isProduction } from '../secret-strength.ts';
import type { ServiceConfig } from './types.ts';

const booleanFlag = z.preprocess((v) => (typeof v === 'string' ? ['1', 'true', 'yes'].includes(v.toLowerCase()) : v), z.boolean());

/** The common schema plus PORT/HOST, extended by each service with its own variables. */
export const serviceConfigSchema = (defaultPort: number) =>
  commonConfigSchema.extend({
    /** The port this process listens on (the distributed form gives each service the gateway's PORT + 1 … + 4). */
    PORT: port(defaultPort),
    /** The address this process listens on. */
    HOST: z.string().default('0.0.0.0'),
    /** Run this service's migrations at start (always on in the embedded form; in a deployment the migrate job runs them). */
    MIGRATE_ON_START: booleanFlag.default(false),
    /**
     * How long an idempotency claim outlives a process that died holding it (the holder renews it
     * every third of this while it works), so a retry after a crash runs within this time.
     */
    IDEMPOTENCY_LEASE_MS: z.coerce.number().int().min(300).default(10_000),
    /** Connections this process may hold to PostgreSQL (instances × this must fit max_connections). */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(100).default(10),
    /** How long a stopping process lets requests under way finish before it cuts them. */
    DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).default(8_000),
  });

/**
 * Parses a service's schema; in embedded mode (no DATABASE_URL) a missing internal token is
 * generated. In production every secret must be strong (secret-strength.ts) and `/metrics` must
 * ask for a token.
 */
export function loadServiceConfig<S extends z.ZodType<ServiceConfig, z.ZodTypeDef, unknown>>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const config = parseConfig(schema, env);
  if (isProduction(config)) {
    assertStrongSecrets(config as unknown as Record<string, unknown>);
    if (!config.METRICS_TOKEN) throw new ConfigError('METRICS_TOKEN is required in production: /metrics answers only the scraper that holds it.');
  }
  if (config.NATS_USER !== undefined && !config.NATS_PASSWORD) throw new ConfigError('NATS_PASSWORD is required with NATS_USER.');
  if (!config.INTERNAL_TOKEN && !config.DATABASE_URL) config.INTERNAL_TOKEN = randomBytes(32).toString('base64url');
  return config;
}
