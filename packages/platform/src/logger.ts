import { trace, context } from '@opentelemetry/api';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { currentRequestId } from './request-context.ts';

export type { Logger };

/**
 * Paths that may carry a secret. Redaction is the last line of defence: code should not log
 * secrets in the first place, but a stray `log.info({ req })` must not leak a key.
 */
export const REDACTED_PATHS = [
  'authorization',
  'secret',
  'token',
  'password',
  '*.authorization',
  '*.secret',
  '*.token',
  '*.password',
  '*.api_key',
  'req.headers.authorization',
  'req.headers["x-internal-token"]',
  'headers.authorization',
  'headers["x-internal-token"]',
];

/** pino with the request id and the active trace/span ids on every line. */
export function createLogger(options: { name: string; level?: string } & Omit<LoggerOptions, 'name' | 'level'>, destination?: DestinationStream): Logger {
  const { name, level = 'info', ...rest } = options;
  return pino(
    {
      name,
      level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin() {
        const fields: Record<string, string> = {};
        const requestId = currentRequestId();
        if (requestId) fields.request_id = requestId;
        const span = trace.getSpan(context.active())?.spanContext();
        if (span && trace.isSpanContextValid(span)) {
          fields.trace_id = span.traceId;
          fields.span_id = span.spanId;
        }
        return fields;
      },
      ...rest,
    },
    destination,
  );
}
