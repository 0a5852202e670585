import { trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { newId } from '../ids.ts';
import { requestContext } from '../request-context.ts';

const REQUEST_ID_PATTERN = /^req_[0-9A-Za-z]{20,40}$/;

/**
 * Gives every request a `req_...` id: the one the gateway forwarded (x-request-id) when it is
 * well formed, else a new one. The id is returned as `Request-Id`, put on the active span and
 * kept in the async context for the logger, so one id finds the response, the logs and the trace.
 */
export function requestId(options: { trustHeader: boolean }): RequestHandler {
  return (req, res, next) => {
    const forwarded = options.trustHeader ? req.get('x-request-id') : undefined;
    const id = forwarded && REQUEST_ID_PATTERN.test(forwarded) ? forwarded : newId('request');
    res.locals.requestId = id;
    res.setHeader('Request-Id', id);
    trace.getActiveSpan()?.setAttribute('request.id', id);
    requestContext.run({ requestId: id }, next);
  };
}
