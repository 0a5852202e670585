import { isApiError, type ApiError } from '@connectivity/contracts';
import express, { type Request, type Response } from 'express';
import request from 'supertest';
import { authenticate } from '../../src/edge/authenticate.ts';
import type { Identity } from '../../src/domain/identity.ts';
import { bearer, type Harness } from './harness.ts';

/** What one edge step did with a real request: what it returned or threw, and the answer it left. */
export interface StepOutcome<T> {
  value: T | undefined;
  /** The catalogue's error the step refused the request with. */
  error: ApiError | undefined;
  /** The answer: the headers the step set, and its status and body when it answered itself. */
  response: request.Response;
}

/**
 * Runs one edge step alone on a real HTTP request: a bare express app whose only handler calls
 * the step, so it gets a real `req` and `res` and nothing else of the edge runs. The client's
 * address is taken from `X-Forwarded-For`, so a test can count requests from an address of its own.
 */
export async function runStep<T>(
  step: (req: Request, res: Response) => T | Promise<T>,
  send: (client: ReturnType<typeof request>) => request.Test,
): Promise<StepOutcome<T>> {
  const app = express();
  app.set('trust proxy', true);
  let value: T | undefined;
  let error: ApiError | undefined;
  app.use(async (req, res, next) => {
    try {
      value = await step(req, res);
    } catch (thrown) {
      // Anything but the catalogue's error object fails the test (as a 500).
      if (!isApiError(thrown)) {
        next(thrown);
        return;
      }
      error = thrown;
    }
    if (!res.headersSent) res.status(204).end();
  });
  const response = await send(request(app));
  return { value, error, response };
}

/** The identity the authentication step gives a key (read through the harness's key cache). */
export async function identityOf(h: Harness, secret: string): Promise<Identity> {
  const { value, error } = await runStep(
    (req, res) => authenticate({ edge: h.edge, rateLimitPerMinute: h.config.RATE_LIMIT_PER_MINUTE }, req, res),
    (client) => client.get('/').set(bearer(secret)),
  );
  if (!value) throw new Error(`the key was refused: ${error?.code}`);
  return value;
}
