import { z } from 'zod';
import { DEFAULT_DATA_DIR } from './db/create-database.ts';
import { parseInternalCallers } from './http/internal-auth.ts';

/** Raised at boot when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parses the environment once, at boot, and fails fast with every problem listed, so a
 * misconfigured container dies with a readable message instead of misbehaving later.
 * This (and each service's own config.ts, which calls it) is the only place that reads
 * process.env.
 */
export function parseConfig<S extends z.ZodTypeAny>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data as z.infer<S>;
  const lines = result.error.issues.map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
}

/** An empty variable is an unset one (`FOO=` in a file or a compose list), for every setting of every process. */
export const emptyToUndefined = (value: unknown) => (value === '' ? undefined : value);

/** A setting that may be unset (or empty), parsed by `schema` when set. */
export const optionalSetting = <T extends z.ZodTypeAny>(schema: T) => z.preprocess(emptyToUndefined, schema.optional());

/** An optional URL-ish variable where an empty string means "unset". */
export const optionalUrl = z.preprocess(emptyToUndefined, z.string().url().optional());

/** One URL or a comma-separated list of them (every server of a cluster); empty means unset. */
export const optionalUrlList = z.preprocess(
  emptyToUndefined,
  z
    .string()
    .refine((value) => value.split(',').every((part) => URL.canParse(part.trim())), 'must be a URL or a comma-separated list of URLs')
    .optional(),
);

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** The variables every process of the service shares. */
export const commonConfigSchema = z.object({
  /** `production` makes secrets, internal credentials and the metrics token required, and refuses weak ones (record 0226). */
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** The pino level of the logs (JSON lines on stdout). */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** PostgreSQL; unset = the embedded PGlite under DATA_DIR. */
  DATABASE_URL: optionalUrl,
  /**
   * NATS with JetStream, one server or every server of a cluster (comma-separated, so a process
   * starts while any one of them is up); unset = the in-process bus (embedded mode only).
   */
  NATS_URL: optionalUrlList,
  /**
   * Copies JetStream keeps of the event streams (3 on a three-server cluster, so losing a server
   * loses nothing). Set: streams are created with it, and existing ones brought to it at start.
   * Unset: created with one, and an existing stream's count left as an operator set it.
   */
  NATS_STREAM_REPLICAS: z.preprocess(emptyToUndefined, z.coerce.number().int().min(1).max(5).optional()),
  /**
   * The names this deployment uses on NATS, so several deployments can share one server: the
   * stream (dead letters go to `<stream>_DEAD`), a prefix for every subject (dot-terminated
   * tokens, e.g. `staging.`) and one for every durable consumer. Streams may not overlap: give
   * each deployment both its own stream and its own subject prefix.
   */
  NATS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -')
    .default('EVENTS'),
  /** A prefix for every subject of this deployment: dot-terminated tokens (e.g. `staging.`); see NATS_STREAM. */
  NATS_SUBJECT_PREFIX: z
    .string()
    .regex(/^([A-Za-z0-9_-]+\.)*$/, 'must be dot-terminated tokens, e.g. `staging.`')
    .default(''),
  /** A prefix for every durable consumer of this deployment; see NATS_STREAM. */
  NATS_DURABLE_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_-]*$/, 'must be letters, digits, _ or -')
    .default(''),
  /**
   * The user and password this process connects to NATS with (each service its own, with
   * permissions on its own subjects only: docs/decisions/0220-nats-users-per-service.md); unset:
   * no authentication.
   */
  NATS_USER: z.preprocess(emptyToUndefined, z.string().optional()),
  /** The password of NATS_USER (required with it). */
  NATS_PASSWORD: z.preprocess(emptyToUndefined, z.string().optional()),
  /** A CA bundle (PEM file): set, the connection to NATS must be TLS, verified against it. */
  NATS_TLS_CA_FILE: z.preprocess(emptyToUndefined, z.string().optional()),
  /**
   * A CA bundle (PEM file): set, connections to PostgreSQL must be TLS and the server's
   * certificate must be signed by it and name the host connected to (verify-full).
   */
  DATABASE_CA_FILE: z.preprocess(emptyToUndefined, z.string().optional()),
  /** Where the embedded database (PGlite) and the local webhook sealing key live. */
  DATA_DIR: z.string().min(1).default(DEFAULT_DATA_DIR),
  /**
   * This process's credential on the calls it makes to the services (each caller its own in
   * production); without INTERNAL_CALLERS it is also the one token every caller shares.
   */
  INTERNAL_TOKEN: z.preprocess(emptyToUndefined, z.string().min(16).optional()),
  /**
   * The callers a service admits, as `name=<SHA-256 hex of its token>` pairs (gateway,
   * gateway-admin, inventory, sandbox-simulator); each route admits the ones its contract names.
   * Required in production (docs/decisions/0222-internal-calls-with-a-credential-per-caller.md).
   */
  INTERNAL_CALLERS: z.preprocess(
    emptyToUndefined,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return undefined;
        const parsed = parseInternalCallers(value);
        if (typeof parsed === 'string') {
          ctx.addIssue({ code: 'custom', message: parsed });
          return z.NEVER;
        }
        return parsed;
      }),
  ),
  /** The bearer token `/metrics` asks for (Prometheus'); required in production. */
  METRICS_TOKEN: z.preprocess(emptyToUndefined, z.string().optional()),
  /** The public base URL integrators use; error links are built from it. */
  PUBLIC_BASE_URL: z.string().url().default('http://localhost:8080'),
});

export type CommonConfig = z.infer<typeof commonConfigSchema>;

/** OpenTelemetry's own standard variables, read once when tracing starts. */
export const telemetryConfigSchema = z.object({
  /** The service name on spans and metrics (each process adds its own component name). */
  OTEL_SERVICE_NAME: z.string().min(1).default('connectivity'),
  /** Export traces and metrics over OTLP/HTTP (e.g. `http://localhost:4318`); unset: spans are made but not exported, and metrics are on `/metrics` alone. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  /** `none` keeps metrics off OTLP even with an endpoint (they stay on `/metrics`). */
  OTEL_METRICS_EXPORTER: z.string().optional(),
  /** How often metrics are pushed over OTLP, in ms. */
  OTEL_METRIC_EXPORT_INTERVAL: z.coerce.number().int().min(1_000).default(15_000),
  /** OTLP over HTTP as protobuf (the default: smaller, cheaper to encode) or as `http/json`. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(emptyToUndefined, z.enum(['http/protobuf', 'http/json']).optional()),
  /** The OTLP protocol of metrics alone, when it differs from OTEL_EXPORTER_OTLP_PROTOCOL. */
  OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: z.preprocess(emptyToUndefined, z.enum(['http/protobuf', 'http/json']).optional()),
});
