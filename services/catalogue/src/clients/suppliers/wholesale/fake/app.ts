import { randomInt } from 'node:crypto';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { makeIccid } from '../../../../domain/iccid.ts';
import { WHOLESALE_ERROR_CODES, wholesaleOrderRequestSchema, type WholesaleBundle, type WholesaleProfile } from '../wholesale-api.ts';
import { FAKE_SUPPLIER_ISSUER_ID, FAKE_SUPPLIER_SMDP_ADDRESS, fakeSupplierCatalogue } from './catalogue.ts';

type Mode<F extends string> = 'ok' | F;

/** What the fake supplier gets wrong on purpose, so tests can see each failure mapped. */
export interface FakeSupplierFaults {
  catalogue: Mode<'down'>;
  prices: Mode<'down'>;
  orders: Mode<'down' | 'refuse'>;
  profiles: Mode<'down' | 'unsupported'>;
  /** The next N requests (any route) answer 503, then it recovers: exercises retries. */
  failNext: number;
  /** Added to every answer, to exercise timeouts. */
  latencyMs: number;
}

export interface FakeSupplierState {
  apiKey: string;
  faults: FakeSupplierFaults;
  /** Requests received, by route ("GET /v1/catalogue"), for tests counting retries. */
  requests: Map<string, number>;
  /** Profiles sold, by ICCID, with their status; a terminated profile is gone for good. */
  profiles: Map<string, { status: 'active' | 'suspended' | 'terminated'; bundle: string }>;
  /** Orders by reference, so a repeated order returns what the first one bought. */
  orders: Map<string, { bundle: string; quantity: number; profiles: WholesaleProfile[] }>;
  catalogue: { bundle: WholesaleBundle; wholesale_cents: number }[];
}

export const healthyFaults = (): FakeSupplierFaults => ({
  catalogue: 'ok',
  prices: 'ok',
  orders: 'ok',
  profiles: 'ok',
  failNext: 0,
  latencyMs: 0,
});

export function createFakeSupplierState(apiKey: string): FakeSupplierState {
  return {
    apiKey,
    faults: healthyFaults(),
    requests: new Map(),
    profiles: new Map(),
    orders: new Map(),
    catalogue: fakeSupplierCatalogue(),
  };
}

const fail = (res: Response, status: number, code: string, message: string) => {
  res.status(status).json({ error: { code, message } });
};

const randomSerial = () => Array.from({ length: 11 }, () => String(randomInt(10))).join('');
const randomMatchingId = () => Array.from({ length: 24 }, () => 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'[randomInt(32)]).join('');

/** A small wholesale eSIM supplier speaking the API of `wholesale-api.ts`. */
export function createFakeSupplierApp(state: FakeSupplierState): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(express.json());

  app.use((req: Request, res: Response, next: NextFunction) => {
    const route = `${req.method} ${req.path.replace(/\/profiles\/[^/]+\//, '/profiles/:iccid/')}`;
    state.requests.set(route, (state.requests.get(route) ?? 0) + 1);
    if (req.get('authorization') !== `Bearer ${state.apiKey}`) {
      fail(res, 401, WHOLESALE_ERROR_CODES.unauthorized, 'bad API key');
      return;
    }
    const proceed = () => {
      if (state.faults.failNext > 0) {
        state.faults.failNext -= 1;
        fail(res, 503, WHOLESALE_ERROR_CODES.unavailable, 'temporarily unavailable');
        return;
      }
      next();
    };
    if (state.faults.latencyMs > 0) setTimeout(proceed, state.faults.latencyMs);
    else proceed();
  });

  app.get('/v1/catalogue', (_req, res) => {
    if (state.faults.catalogue === 'down') return fail(res, 503, WHOLESALE_ERROR_CODES.unavailable, 'catalogue unavailable');
    res.json({ bundles: state.catalogue.map((entry) => entry.bundle) });
  });

  app.get('/v1/prices', (_req, res) => {
    if (state.faults.prices === 'down') return fail(res, 503, WHOLESALE_ERROR_CODES.unavailable, 'pricing unavailable');
    res.json({ prices: state.catalogue.map((entry) => ({ bundle: entry.bundle.name, wholesale_cents: entry.wholesale_cents })) });
  });

  app.post('/v1/orders', (req, res) => {
    if (state.faults.orders === 'down') return fail(res, 503, WHOLESALE_ERROR_CODES.unavailable, 'ordering unavailable');
    if (state.faults.orders === 'refuse') return fail(res, 409, WHOLESALE_ERROR_CODES.outOfStock, 'out of stock');
    const parsed = wholesaleOrderRequestSchema.safeParse(req.body);
    if (!parsed.success) return fail(res, 400, WHOLESALE_ERROR_CODES.invalidRequest, parsed.error.message);
    const { reference, bundle, quantity } = parsed.data;

    const previous = state.orders.get(reference);
    if (previous) {
      if (previous.bundle !== bundle || previous.quantity !== quantity) {
        return fail(res, 409, WHOLESALE_ERROR_CODES.invalidRequest, 'reference already used for another order');
      }
      return res.json({ reference, profiles: previous.profiles });
    }
    const entry = state.catalogue.find((e) => e.bundle.name === bundle);
    if (!entry) return fail(res, 404, WHOLESALE_ERROR_CODES.unknownBundle, `unknown bundle ${bundle}`);
    if (entry.bundle.status === 'retired') return fail(res, 409, WHOLESALE_ERROR_CODES.notSupported, 'bundle retired');

    const profiles = Array.from({ length: quantity }, () => ({
      iccid: makeIccid(FAKE_SUPPLIER_ISSUER_ID, randomSerial()),
      smdp_address: FAKE_SUPPLIER_SMDP_ADDRESS,
      matching_id: randomMatchingId(),
    }));
    for (const profile of profiles) state.profiles.set(profile.iccid, { status: 'active', bundle });
    state.orders.set(reference, { bundle, quantity, profiles });
    res.status(201).json({ reference, profiles });
  });

  const targets = { suspend: 'suspended', resume: 'active', terminate: 'terminated' } as const;
  for (const action of ['suspend', 'resume', 'terminate'] as const) {
    app.post(`/v1/profiles/:iccid/${action}`, (req, res) => {
      if (state.faults.profiles === 'down') return fail(res, 503, WHOLESALE_ERROR_CODES.unavailable, 'profiles unavailable');
      if (state.faults.profiles === 'unsupported') return fail(res, 409, WHOLESALE_ERROR_CODES.notSupported, `cannot ${action}`);
      const iccid = String(req.params.iccid);
      const profile = state.profiles.get(iccid);
      if (!profile) return fail(res, 404, WHOLESALE_ERROR_CODES.unknownProfile, 'unknown profile');
      // Terminating twice is a no-op (callers retry it); nothing else brings a profile back.
      if (profile.status === 'terminated' && action !== 'terminate') {
        return fail(res, 409, WHOLESALE_ERROR_CODES.notSupported, `cannot ${action} a terminated profile`);
      }
      profile.status = targets[action];
      res.json({ iccid, status: profile.status });
    });
  }

  app.use((_req: Request, res: Response) => fail(res, 404, 'not_found', 'no such route'));
  return app;
}
