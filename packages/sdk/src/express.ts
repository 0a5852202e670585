import type { IncomingMessage, ServerResponse } from 'node:http';
// The package's own main entry, by name: the built subpath imports it instead of bundling a second copy,
// so there is one `WebhookVerificationError` class and one copy of the contract (record 0185).
import { verifyWebhook, WebhookVerificationError, type RawBody, type WebhookEvent } from '@connectivity/sdk';

// `@connectivity/sdk/express`: the one Node-only part of the SDK, apart so the main entry and its types
// need no Node built-in. Structural types only: the SDK never imports express, so it is no dependency of
// non-express users. An express Request is an IncomingMessage with `body`; an express Response is a ServerResponse.

/** The request as the middleware sees it; with express, `req.webhookEvent` is typed by the declaration below. */
export interface WebhookRequest extends IncomingMessage {
  body?: unknown;
  webhookEvent?: WebhookEvent;
}

export type NextFunction = (error?: unknown) => void;

export interface WebhookMiddlewareOptions {
  /** The endpoint's signing secret (`whsec_...`), as `webhooks.create` returned it. */
  secret: string;
  /**
   * Handles the verified event. When given, the middleware is the whole route: it answers 204
   * once the handler resolves (unless the handler answered itself), and passes a handler error to
   * `next` (a non-2xx answer, so the delivery is retried). Without it, the middleware puts the
   * event on `req.webhookEvent` and calls `next()`. Events of a type newer than this SDK come here
   * too, as `UnknownWebhookEvent`: resolving without acting acknowledges and ignores them.
   */
  onEvent?: (event: WebhookEvent, req: WebhookRequest, res: ServerResponse) => unknown;
  /** Largest body read when the middleware reads the request itself; default 1 MiB. */
  limitBytes?: number;
}

/** The body was parsed (or consumed) by another middleware before the signature could be checked on the raw bytes. */
export class WebhookBodyParsedError extends Error {
  override name = 'WebhookBodyParsedError';
}

const DEFAULT_LIMIT_BYTES = 1024 * 1024;

/**
 * Express (or plain `node:http`) middleware that verifies a webhook delivery on its raw bytes.
 * It reads the body itself, or takes the Buffer `express.raw({ type: 'application/json' })` left
 * in `req.body`. A bad or missing signature is answered 400 with the reason. A body that a JSON
 * parser (`express.json()`) already parsed cannot be verified: that is a set-up error, passed to
 * `next` with a message saying how to mount the middleware.
 *
 * ```ts
 * import { webhookMiddleware } from '@connectivity/sdk/express';
 *
 * app.post('/webhooks', webhookMiddleware({ secret }), (req, res) => {
 *   const event = req.webhookEvent!; // typed by `type`
 *   res.sendStatus(204);
 * });
 * ```
 */
export function webhookMiddleware(options: WebhookMiddlewareOptions): (req: WebhookRequest, res: ServerResponse, next: NextFunction) => void {
  if (!options.secret) throw new TypeError('webhookMiddleware needs the endpoint secret (whsec_...).');
  const limit = options.limitBytes ?? DEFAULT_LIMIT_BYTES;
  return (req, res, next) => {
    // `next` is called outside the promise chain of `handle`, so an error thrown by what comes next never reaches it twice.
    handle(req, res).then((passOn) => passOn && next(), next);
  };

  /** Answers the request, or returns true when the next handler should. */
  async function handle(req: WebhookRequest, res: ServerResponse): Promise<boolean> {
    const body = await rawBodyOf(req, limit);
    let event: WebhookEvent;
    try {
      event = verifyWebhook(body, req.headers, options.secret);
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      res.statusCode = 400;
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end(`Webhook signature verification failed: ${error.message}`);
      return false;
    }
    req.webhookEvent = event;
    if (!options.onEvent) return true;
    await options.onEvent(event, req, res);
    if (!res.headersSent) {
      res.statusCode = 204;
      res.end();
    }
    return false;
  }
}

async function rawBodyOf(req: WebhookRequest, limit: number): Promise<RawBody> {
  if (req.body instanceof Uint8Array || typeof req.body === 'string') return req.body;
  if (req.readableEnded || (req.body !== undefined && !isEmptyObject(req.body))) {
    throw new WebhookBodyParsedError(
      'The webhook body was already parsed (e.g. by express.json()), so its signature cannot be checked on the raw bytes. ' +
        'Mount webhookMiddleware before any JSON parser, or on a route that uses express.raw({ type: "application/json" }).',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > limit) throw new RangeError(`The webhook body is larger than ${limit} bytes.`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

// Express 4's JSON parser leaves `{}` for a request it skipped; such a request is still unread.
function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
}

declare global {
  // Lets an express handler read `req.webhookEvent` typed, without this package importing express.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      webhookEvent?: WebhookEvent;
    }
  }
}
