import { context } from '@opentelemetry/api';
import type { Logger } from '../logger.ts';
import type { RequestHandler } from 'express';

/**
 * One line per request with method, path, status and duration. Headers are not logged at
 * all, so neither an API key nor an idempotency key can reach the logs.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // Nothing is measured when nothing would be written (a production level above info).
    if (!logger.isLevelEnabled('info')) {
      next();
      return;
    }
    const started = process.hrtime.bigint();
    // `close`, not `finish`: a stream the client leaves never finishes, and is logged all the same.
    // Bound to the request's context, so the line carries its trace id (the response is not).
    res.once(
      'close',
      context.bind(context.active(), () => {
        if (req.path === '/healthz' || req.path === '/readyz' || req.path === '/metrics') return;
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        logger.info(
          {
            request_id: res.locals.requestId as string,
            method: req.method,
            path: req.path,
            status: res.statusCode,
            ms: Math.round(ms),
            ...(!res.writableFinished && { aborted: true }),
          },
          'request',
        );
      }),
    );
    next();
  };
}
