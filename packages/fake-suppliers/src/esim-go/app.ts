import { timingSafeEqual } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { bodyParsers } from '../shared/body-parsers.ts';
import { controlRouter } from '../shared/control.ts';
import { exchangeMiddleware } from '../shared/exchange.ts';
import { faultMiddleware } from '../shared/faults.ts';
import { OpenApiValidator } from '../shared/openapi/validator.ts';
import type { EsimGoContext } from './context.ts';
import { esimGoControlRouter } from './control-routes.ts';
import { ESIM_GO_DEVIATIONS } from './deviations.ts';
import { esimGoDocument } from './documents.ts';
import { badRequest, forbidden, notFound, rateLimitExceeded, serverError } from './errors.ts';
import { accountRoutes } from './routes-account.ts';
import { catalogueRoutes } from './routes-catalogue.ts';
import { esimRoutes } from './routes-esims.ts';
import { orderRoutes } from './routes-orders.ts';
import type { EsimGoControl } from './context.ts';

let validator: OpenApiValidator | undefined;

/** The validator built from eSIM Go's v2.4 document, with the named deviations of ESIM_GO_DEVIATIONS. */
export function esimGoValidator(): OpenApiValidator {
  validator ??= new OpenApiValidator([esimGoDocument()], { pathPrefix: '/v2.4', deviations: ESIM_GO_DEVIATIONS });
  return validator;
}

/** EG-17: every answer carries the limiter's headers; over 10 per second per IP is a 429. */
function rateLimit(ctx: EsimGoContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const now = ctx.clock.now();
    const verdict = ctx.limiter.hit(`ip:${req.ip ?? ''}`, ctx.settings.rateLimit, now);
    res.set({
      'X-Ratelimit-Limit': String(verdict.limit),
      'X-Ratelimit-Remaining': String(verdict.remaining),
      'X-Ratelimit-Reset': new Date(verdict.resetAt).toISOString(),
      'X-Ratelimit-Cost': '1',
    });
    if (!verdict.allowed) return rateLimitExceeded(res);
    next();
  };
}

/** X-API-Key on every request (header name case-insensitive); else 403 {"message":"Forbidden"}. */
function requireApiKey(ctx: EsimGoContext) {
  const expected = Buffer.from(ctx.settings.apiKey);
  return (req: Request, res: Response, next: NextFunction) => {
    const given = Buffer.from(String(req.headers['x-api-key'] ?? ''));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return forbidden(res);
    next();
  };
}

/** The eSIM Go API v2.4 under /v2.4, and the control surface under /_fake. */
export function createEsimGoApp(ctx: EsimGoContext, control: EsimGoControl, checks: { requests: boolean; responses: boolean }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use('/_fake', controlRouter(control), esimGoControlRouter(control));

  const api = express.Router();
  api.use(...bodyParsers());
  api.use(exchangeMiddleware({ validator: esimGoValidator(), recorder: ctx.recorder, checkRequests: checks.requests, checkResponses: checks.responses }));
  api.use(faultMiddleware(ctx.faults, ctx.timers, (status, res) => (status === 429 ? rateLimitExceeded(res) : serverError(res, status))));
  api.use(rateLimit(ctx));
  api.use(requireApiKey(ctx));
  catalogueRoutes(ctx, api);
  orderRoutes(ctx, api);
  esimRoutes(ctx, api);
  accountRoutes(ctx, api);
  api.use((_req: Request, res: Response) => notFound(res));
  api.use((error: Error & { status?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error.status && error.status < 500) return badRequest(res, 'Bad Request - the request format is not accepted');
    serverError(res, 500);
  });
  app.use('/v2.4', api);
  return app;
}
