import type { RequestHandler, Request, Response } from 'express';
import { validateRequest } from '../domain/validate-request.ts';
import { authenticate } from './authenticate.ts';
import { NO_BODY, parseJsonObject, readBody } from './body.ts';
import type { EdgeDeps } from './deps.ts';
import { forward, passOnStream } from './forward.ts';
import { handOff } from './hand-off.ts';
import { checkIdempotencyKey, idempotencyKeyOf } from './idempotency.ts';
import { countKeyRequest, refuseIfKeyLimited } from './rate-limit.ts';
import { logWhenAnswered } from './request-log.ts';
import { routeOf } from './route.ts';
import { chooseServedVersion, pinVersionOnFirstCall } from './version.ts';

/**
 * The public edge for every authenticated path, its steps (record 0260) in the order of record
 * 0255. A route the gateway owns goes on (`handOff`) to the gateway's own router, mounted after
 * this.
 */
export function edgePipeline(deps: EdgeDeps): RequestHandler {
  return async (req, res, next) => {
    let passOn: boolean;
    try {
      passOn = await handle(deps, req, res);
    } catch (error) {
      next(error);
      return;
    }
    if (passOn) next();
  };
}

/** Answers the request, or resolves true when the gateway's own router is to answer it. */
async function handle(deps: EdgeDeps, req: Request, res: Response): Promise<boolean> {
  const identity = await authenticate(deps, req, res); // 1
  // From here every answer, an error too, is the key's: logged, and its use noted.
  logWhenAnswered(deps.edge.requestLog, req, res, identity);
  await deps.edge.keyUse.note(identity);
  // Counted now, refused at 3: a refusal for the version carries the rate-limit headers too.
  const decision = await countKeyRequest(deps, res, identity);
  const version = chooseServedVersion(deps, req, res, identity); // 2
  if (identity.pinnedVersion === null) await pinVersionOnFirstCall(deps, identity, version);
  refuseIfKeyLimited(res, decision); // 3
  const match = routeOf(req, res, identity); // 4, 5
  const raw = match.entry.route.method === 'GET' ? NO_BODY : await readBody(deps, req, res, identity); // 6
  const body = parseJsonObject(raw);
  const idempotencyKey = idempotencyKeyOf(req, match.entry); // 7
  validateRequest(match.entry, { params: match.params, query: req.query, body }); // 8
  if (match.entry.metadata.stream) {
    await passOnStream(deps, req, res, identity, version, match);
    return false;
  }
  if (idempotencyKey !== undefined) await checkIdempotencyKey(deps, req, identity, idempotencyKey, raw); // 9
  if (match.entry.metadata.service === 'gateway') {
    handOff(res, identity, version); // 10, the gateway's own router
    return true;
  }
  await forward(deps, req, res, identity, version, match, raw, idempotencyKey); // 10, the owning service
  return false;
}
