import type { Server } from 'node:http';
import {
  closeServer,
  createLogger,
  errorHandler,
  idempotencyMigration,
  idempotencyStore,
  idempotentRequests,
  listen,
  runMigrations,
} from '@connectivity/platform';
import express, { type Request } from 'express';
import type { Knex } from 'knex';

/** What the fake service saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Upstream {
  url: string;
  /** Every request that arrived, replays included. */
  seen: SeenRequest[];
  /** Requests to `path` with `method` that reached a route handler: not answered from an idempotency record. */
  handled(method: string, path: string): number;
  /** Side effects performed: one per POST /v1/esim that ran to the end. */
  orders(): number;
  /** Makes POST /v1/events/replay wait until the returned function is called. */
  hold(): () => void;
  /** The next request to `path` is answered with this status (an error object), then as usual. */
  answerNext(path: string, answer: { status: number; retryAfter?: string | undefined }): void;
  close(): Promise<void>;
}

/** The body the fake service answers GET /v1/esim/{id}/qr_code with (as image/png). */
export const BINARY_BODY = Buffer.from([...Array.from({ length: 256 }, (_, i) => i), 0x89, 0x50, 0x4e, 0x47, 0xc3, 0x28, 0xff, 0xfe]);

/**
 * A small real HTTP service standing in for the owning services: it records every request,
 * answers POST /v1/esim after a short pause (so duplicates really overlap) and counts the
 * orders it "made", answers POST /v1/test/error with the chosen error, and can be told to hang
 * or to answer with a body that is not an error object. Its mutating routes keep idempotency
 * records as every owning service does (the platform's `idempotentRequests`, on `db`), since
 * the edge leaves the answers to them.
 */
export async function startUpstream(options: { db: Knex; leaseMs?: number }): Promise<Upstream> {
  const schema = 'upstream_stub';
  const logger = createLogger({ name: 'upstream-stub', level: 'silent' });
  await runMigrations(options.db, { schema, migrations: { '0001_idempotency': idempotencyMigration(schema) } });
  const idempotent = idempotentRequests({
    db: options.db,
    store: idempotencyStore(`${schema}.idempotency_records`),
    leaseMs: options.leaseMs ?? 10_000,
    retentionMs: 86_400_000,
    baseUrl: 'https://api.example.test',
    logger,
  });
  const seen: SeenRequest[] = [];
  let orders = 0;
  let gate: Promise<void> | undefined;
  const next = new Map<string, { status: number; retryAfter?: string | undefined }>();
  const app = express();
  app.use(
    express.text({
      type: () => true,
      // The raw bytes are what idempotency fingerprints, as in every service.
      verify: (req, _res, buf) => {
        (req as Request & { rawBody?: Buffer }).rawBody = buf;
      },
    }),
  );
  app.use((req, res, proceed) => {
    seen.push({ method: req.method, url: req.originalUrl, headers: req.headers, body: typeof req.body === 'string' ? req.body : '' });
    const answer = next.get(req.path);
    if (!answer) {
      proceed();
      return;
    }
    next.delete(req.path);
    if (answer.retryAfter !== undefined) res.setHeader('Retry-After', answer.retryAfter);
    res.status(answer.status).json({ error: { type: 'internal', code: 'internal_error', message: 'chosen', link: 'http://x' } });
  });
  app.use(idempotent);
  const handled: { method: string; path: string }[] = [];
  app.use((req, _res, proceed) => {
    handled.push({ method: req.method, path: req.path });
    proceed();
  });
  app.post('/v1/esim', async (req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    orders += 1;
    const body = JSON.parse(String(req.body)) as { bundle: string; quantity?: number };
    res.status(201).json({ object: 'order', id: `ord_${String(orders).padStart(26, '0')}`, bundle: body.bundle, n: orders });
  });
  app.patch('/v1/esim/:id', (req, res) => {
    res.status(409).json({ error: { type: 'conflict', code: 'invalid_state_transition', message: 'no', link: 'http://x/v1/errors/invalid_state_transition' } });
  });
  app.get('/v1/esim', (_req, res) => {
    res.json({ object: 'list', data: [], has_more: false, next_cursor: null });
  });
  app.get('/v1/esim/bundles', (req, res) => {
    // As catalogue marks the sandbox catalogue: a caller may keep it a minute.
    if (req.get('x-environment') === 'test') res.setHeader('Cache-Control', 'private, max-age=60');
    res.json({ object: 'list', data: [], has_more: false, next_cursor: null, query: req.query, served: seen.length });
  });
  // Every byte value, most of them invalid UTF-8: what a PNG looks like to a text decoder.
  app.get('/v1/esim/:id/qr_code', (req, res) => {
    const svg = req.get('accept')?.includes('image/svg+xml') === true;
    res.setHeader('vary', 'Accept');
    res.type(svg ? 'image/svg+xml' : 'image/png').send(svg ? Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') : BINARY_BODY);
  });
  app.get('/v1/esim/:id', (req, res) => {
    if (req.params.id === 'hang') return; // never answers
    if (req.params.id === 'broken') {
      res.status(500).type('text/plain').send('Internal Server Error');
      return;
    }
    res.json({ object: 'esim', id: req.params.id });
  });
  app.post('/v1/events/replay', async (_req, res) => {
    await gate;
    res.json({ object: 'replay', queued: 0, endpoints: 0, since: null, event: null });
  });
  app.put('/internal/accounts/:accountId', (req, res) => {
    const body = JSON.parse(String(req.body)) as { verified?: boolean; live_balance_cents?: number };
    res.json({
      object: 'account_settings',
      account_id: req.params.accountId,
      verified: body.verified ?? false,
      live_balance_cents: body.live_balance_cents ?? 0,
      updated_at: 1,
    });
  });
  app.put('/internal/accounts/:accountId/live-ordering', (req, res) => {
    const body = JSON.parse(String(req.body)) as { enabled: boolean };
    res.json({ object: 'live_ordering', account_id: req.params.accountId, enabled: body.enabled, updated_at: 1 });
  });
  app.post('/v1/test/error', (req, res) => {
    const body = JSON.parse(String(req.body)) as { code: string };
    res.status(400).json({ error: { type: 'invalid_request', code: body.code, message: 'chosen', link: 'http://x' } });
  });
  app.post('/v1/test/usage', (req, res) => {
    if (String(req.body).includes('"hang"')) return; // never answers
    res.json({ object: 'esim' });
  });
  // As catalogue answers a supplier's callback: a signature the (stand-in) adapter refuses is 401.
  app.post('/internal/supplier-callbacks/:vendor', (req, res) => {
    const callback = JSON.parse(String(req.body)) as { body_base64: string; headers: Record<string, string> };
    if (callback.headers['x-signature-sha256'] !== 'good') {
      res
        .status(401)
        .json({ error: { type: 'authentication', code: 'signature_invalid', message: 'The callback signature is missing or wrong.', link: 'http://x' } });
      return;
    }
    // As catalogue answers for the vendor that is not the live supplier (its words).
    if (req.params.vendor === 'esim-go' && callback.headers['x-live-supplier'] === 'airalo') {
      res
        .status(404)
        .json({ error: { type: 'not_found', code: 'resource_not_found', param: 'vendor', message: '`esim-go` is not the live supplier.', link: 'http://x' } });
      return;
    }
    res.json({ received: 1, stored: 1 });
  });
  // The error object for what the idempotency records refuse (409 in progress or key reused).
  app.use(errorHandler({ baseUrl: 'https://api.example.test', logger }));
  const server: Server = await listen(app, 0, '127.0.0.1');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    handled: (method, path) => handled.filter((request) => request.method === method && request.path === path).length,
    orders: () => orders,
    hold() {
      let release = () => {};
      gate = new Promise((resolve) => {
        release = () => {
          gate = undefined;
          resolve();
        };
      });
      return release;
    },
    answerNext(path, answer) {
      next.set(path, answer);
    },
    close: async () => {
      server.closeAllConnections();
      await closeServer(server);
    },
  };
}
