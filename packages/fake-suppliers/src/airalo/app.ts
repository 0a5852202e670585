import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { bodyParsers } from '../shared/body-parsers.ts';
import { controlRouter } from '../shared/control.ts';
import { exchangeMiddleware } from '../shared/exchange.ts';
import { faultMiddleware } from '../shared/faults.ts';
import { OpenApiValidator } from '../shared/openapi/validator.ts';
import type { AiraloContext } from './context.ts';
import { airaloControlRouter } from './control-routes.ts';
import { AIRALO_DEVIATIONS } from './deviations.ts';
import { airaloDocuments } from './documents.ts';
import { invalidParameters, notFound, serverError, tooManyAttempts } from './errors.ts';
import { accountRoutes } from './routes-account.ts';
import { requireToken, tokenRoute } from './routes-auth.ts';
import { orderRoutes } from './routes-orders.ts';
import { packagesRoute } from './routes-packages.ts';
import { refundRoute } from './routes-refund.ts';
import { simRoutes } from './routes-sims.ts';
import { topupRoutes } from './routes-topups.ts';
import type { AiraloControl } from './context.ts';

let validator: OpenApiValidator | undefined;

/** The validator built from Airalo's documents, with the named deviations of AIRALO_DEVIATIONS. */
export function airaloValidator(): OpenApiValidator {
  validator ??= new OpenApiValidator(airaloDocuments(), { deviations: AIRALO_DEVIATIONS });
  return validator;
}

/** The Airalo Partner API v2 under /v2, and the control surface under /_fake. */
export function createAiraloApp(ctx: AiraloContext, control: AiraloControl, checks: { requests: boolean; responses: boolean }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);
  app.use('/_fake', controlRouter(control), airaloControlRouter(control));

  const api = express.Router();
  api.use(...bodyParsers());
  api.use(exchangeMiddleware({ validator: airaloValidator(), recorder: ctx.recorder, checkRequests: checks.requests, checkResponses: checks.responses }));
  api.use(
    faultMiddleware(ctx.faults, ctx.timers, (status, res) =>
      status === 429 ? tooManyAttempts(res, { limit: 0, resetAt: ctx.clock.now() + 1000 }, ctx.clock.now()) : serverError(res, status),
    ),
  );
  tokenRoute(ctx, api);
  api.use(requireToken(ctx));
  packagesRoute(ctx, api);
  orderRoutes(ctx, api);
  simRoutes(ctx, api);
  topupRoutes(ctx, api);
  accountRoutes(ctx, api);
  refundRoute(ctx, api);
  api.use((_req: Request, res: Response) => notFound(res));
  // Express passes body-parser failures here: a body that is not what it says it is.
  api.use((error: Error & { status?: number }, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    if (error.status && error.status < 500) return invalidParameters(res, { body: 'The request body could not be read.' });
    serverError(res, 500);
  });
  app.use('/v2', api);
  return app;
}
