import { trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { ID_PREFIXES, monotonicUlid } from '../ids.ts';
import { requestContext } from '../request-context.ts';

const REQUEST_ID_PATTERN = /^req_[0-9A-Za-z]{20,40}$/;

// The ids a process issues grow within a millisecond too: the request log is ordered by time, then
// id, so a client's back-to-back requests in one millisecond are listed in the order they came.
const nextUlid = monotonicUlid();
const newRequestId = () => `${ID_PREFIXES.request}_${nextUlid(Date.now()).toLowerCase()}`;

/**
 * Gives every request a `req_...` id: the one the gateway forwarded (x-request-id) when it is
 * well formed, else a new one. The id is returned as `Request-Id`, put on the active span and
 * kept in the async context for the logger, so one id finds the response, the logs and the trace.
 */
export function requestId(options: { trustHeader: boolean }): RequestHandler {
  return (req, res, next) => {
    const forwarded = options.trustHeader ? req.get('x-request-id') : undefined;
    const id = forwarded && REQUEST_ID_PATTERN.test(forwarded) ? forwarded : newRequestId();
    res.locals.requestId = id;
    res.setHeader('Request-Id', id);
    trace.getActiveSpan()?.setAttribute('request.id', id);
    requestContext.run({ requestId: id }, next);
  };
}
