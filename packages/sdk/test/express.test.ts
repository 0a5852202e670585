import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, expectTypeOf, test } from 'vitest';
import { webhookMiddleware, WebhookBodyParsedError } from '../src/express.ts';
import { verifyWebhook, type WebhookEvent } from '../src/index.ts';

const secret = `whsec_${Buffer.from('a-test-secret-of-32-bytes-long!!').toString('base64')}`;

const event = {
  object: 'event',
  id: 'evt_01jd8x7k2m9q4r5s6t7v8w9xyz',
  type: 'api_key.first_used',
  time: '2026-11-22T10:15:30.123Z',
  created_at: 1795342530,
  environment: 'test',
  data: {
    object: {
      object: 'api_key',
      id: 'key_01jd8x7k2m9q4r5s6t7v8w9xyz',
      environment: 'test',
      prefix: 'sk_test_Ab3x',
      last4: 'wxyz',
      status: 'active',
      scopes: ['esim:read'],
      created_at: 1795342000,
      last_used_at: 1795342530,
      revoked_at: null,
    },
  },
};

// Pretty-printed, as a sender may well serialise it: JSON.stringify(JSON.parse(body)) is not these bytes.
const body = JSON.stringify(event, null, 2);

function signedHeaders(payload: string) {
  return {
    'content-type': 'application/json',
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': new Webhook(secret).sign(event.id, new Date(), payload),
  };
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

async function serve(app: RequestListener) {
  server = createServer(app);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const deliver = (url: string, headers: Record<string, string> = signedHeaders(body)) => fetch(url, { method: 'POST', headers, body });

describe('webhookMiddleware with express', () => {
  test('verifies the raw bytes it reads itself and puts the typed event on req.webhookEvent', async () => {
    const received: (WebhookEvent | undefined)[] = [];
    const app = express();
    app.post('/hooks', webhookMiddleware({ secret }), (req, res) => {
      expectTypeOf(req.webhookEvent).toEqualTypeOf<WebhookEvent | undefined>();
      received.push(req.webhookEvent);
      res.sendStatus(204);
    });
    const url = await serve(app);
    expect((await deliver(`${url}/hooks`)).status).toBe(204);
    expect(received).toEqual([event]);
  });

  test('takes the Buffer of express.raw() on the route', async () => {
    const received: (WebhookEvent | undefined)[] = [];
    const app = express();
    app.post('/hooks', express.raw({ type: 'application/json' }), webhookMiddleware({ secret }), (req, res) => {
      received.push(req.webhookEvent);
      res.sendStatus(204);
    });
    const url = await serve(app);
    expect((await deliver(`${url}/hooks`)).status).toBe(204);
    expect(received.map((item) => item?.type)).toEqual(['api_key.first_used']);
  });

  test('answers 400 to a bad signature and never reaches the handler', async () => {
    let reached = false;
    const app = express();
    app.post('/hooks', webhookMiddleware({ secret }), (_req, res) => {
      reached = true;
      res.sendStatus(204);
    });
    const url = await serve(app);
    const other = `whsec_${Buffer.from('another-secret-of-32-bytes-long!').toString('base64')}`;
    const forged = { ...signedHeaders(body), 'webhook-signature': new Webhook(other).sign(event.id, new Date(), body) };
    const response = await deliver(`${url}/hooks`, forged);
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/verification failed/);
    const unsigned = await deliver(`${url}/hooks`, { 'content-type': 'application/json' });
    expect(unsigned.status).toBe(400);
    expect(reached).toBe(false);
  });

  test('after express.json() the bytes are gone: a set-up error saying so, where re-serialising would not verify', async () => {
    const errors: unknown[] = [];
    let reserialised: unknown;
    const app = express();
    app.use(express.json());
    app.post('/naive', (req, res) => {
      try {
        verifyWebhook(JSON.stringify(req.body), req.headers, secret);
      } catch (error) {
        reserialised = error;
      }
      res.sendStatus(400);
    });
    app.post('/hooks', webhookMiddleware({ secret }), (_req, res) => res.sendStatus(204));
    const recordErrors: ErrorRequestHandler = (error, _req, res, _next) => {
      errors.push(error);
      res.sendStatus(500);
    };
    app.use(recordErrors);
    const url = await serve(app);

    expect((await deliver(`${url}/naive`)).status).toBe(400);
    expect(reserialised).toBeInstanceOf(Error);
    expect(String(reserialised)).toMatch(/signature/i);

    expect((await deliver(`${url}/hooks`)).status).toBe(500);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(WebhookBodyParsedError);
    expect(String(errors[0])).toMatch(/before any JSON parser/);
  });

  test('with onEvent it is the whole route: 204 when the handler resolves, an error (so a retry) when it throws', async () => {
    const handled: string[] = [];
    const app = express();
    app.post('/ok', webhookMiddleware({ secret, onEvent: (verified) => void handled.push(verified.id) }));
    app.post('/fails', webhookMiddleware({ secret, onEvent: () => Promise.reject(new Error('database down')) }));
    const recordErrors: ErrorRequestHandler = (_error, _req, res, _next) => void res.sendStatus(503);
    app.use(recordErrors);
    const url = await serve(app);
    expect((await deliver(`${url}/ok`)).status).toBe(204);
    expect(handled).toEqual([event.id]);
    expect((await deliver(`${url}/fails`)).status).toBe(503);
  });

  test('hands an event of a type newer than this SDK to onEvent, which acknowledges it by ignoring it (204)', async () => {
    const seen: string[] = [];
    const app = express();
    app.post('/hooks', webhookMiddleware({ secret, onEvent: (verified) => void seen.push(verified.type) }));
    const url = await serve(app);
    const newer = JSON.stringify({ ...event, type: 'payout.paid', data: { amount_cents: 1_200 } });
    const response = await fetch(`${url}/hooks`, { method: 'POST', headers: signedHeaders(newer), body: newer });
    expect(response.status).toBe(204);
    expect(seen).toEqual(['payout.paid']);
  });

  test('works on a plain node:http server too', async () => {
    const handled: string[] = [];
    const middleware = webhookMiddleware({ secret, onEvent: (verified) => void handled.push(verified.type) });
    const listener: RequestListener = (req, res) =>
      middleware(req, res, (error) => {
        res.statusCode = error ? 500 : 404;
        res.end();
      });
    const url = await serve(listener);
    expect((await deliver(url)).status).toBe(204);
    expect(handled).toEqual(['api_key.first_used']);
  });
});
