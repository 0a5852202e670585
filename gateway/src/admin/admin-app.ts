import { ApiError, SCOPES, apiErrorFromZod } from '@connectivity/contracts';
import { accessLog, errorHandler, metricsHandler, requestId, type Logger } from '@connectivity/platform';
import express, { type Express, type Request, type RequestHandler } from 'express';
import type { Knex } from 'knex';
import { z, type ZodTypeAny } from 'zod';
import { findAccount, setRateLimit } from '../db/accounts-repository.ts';
import { listKeys, toApiKey } from '../db/keys-repository.ts';
import { createAccount, restrictKey, revokeKeyById, rotateKey } from '../keys/key-admin.ts';
import type { KeyChangeNotice } from '../keys/key-cache.ts';
import { requireAdminToken } from './admin-auth.ts';
import type { InternalTarget } from './internal-put.ts';
import { putInventorySettings } from './inventory-settings.ts';
import { putLiveOrdering } from './live-ordering.ts';
import { mountSupplierReleaseRoutes } from './supplier-releases.ts';

export interface AdminDeps {
  knex: Knex;
  logger: Logger;
  adminToken: string;
  baseUrl: string;
  inventory: InternalTarget;
  /** catalogue owns the live-ordering switch. */
  catalogue: InternalTarget;
  /** Announces a key or account change to every gateway instance, so none serves a stale copy. */
  keysChanged: (notice: KeyChangeNotice) => void;
}

const scopesSchema = z.array(z.enum(SCOPES)).min(1);
const createAccountBody = z.object({ name: z.string().min(1).max(200).optional() }).strict();
const issueKeyBody = z.object({ environment: z.enum(['test', 'live']), scopes: scopesSchema.optional() }).strict();
const restrictBody = z.object({ scopes: scopesSchema }).strict();
const settingsBody = z
  .object({
    verified: z.boolean().optional(),
    live_balance_cents: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    rate_limit_per_minute: z.number().int().min(1).max(1_000_000).nullable().optional(),
    live_ordering: z.boolean().optional(),
  })
  .strict();

function parse<S extends ZodTypeAny>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw apiErrorFromZod(result.error, 'body');
  return result.data as z.infer<S>;
}

const handler =
  (fn: (req: Request, requestId: string) => Promise<{ status: number; body: unknown }>): RequestHandler =>
  async (req, res, next) => {
    try {
      const { status, body } = await fn(req, String(res.locals.requestId));
      res.status(status).json(body);
    } catch (error) {
      next(error);
    }
  };

async function accountView(knex: Knex, accountId: string) {
  const account = await findAccount(knex, accountId);
  if (!account) throw new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });
  const keys = [
    ...(await listKeys(knex, accountId, 'test', { limit: 1000 })),
    ...(await listKeys(knex, accountId, 'live', { limit: 1000 })),
  ];
  return {
    object: 'account',
    id: account.id,
    name: account.name,
    pinned_version: account.pinned_version,
    rate_limit_per_minute: account.rate_limit_per_minute,
    created_at: Math.floor(account.created_at.getTime() / 1000),
    keys: keys.map(toApiKey),
  };
}

/**
 * The operator admin API (used by `pnpm cli`): accounts and keys, which are not part of the
 * public API, plus verification and balance, passed on to inventory, and the live-ordering
 * switch, passed on to catalogue, and the supplier releases, passed on to inventory. It has its own listener,
 * on the loopback interface by default, and takes only the admin token.
 */
export function createAdminApp(deps: AdminDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestId({ trustHeader: false }));
  app.use(accessLog(deps.logger));
  // Prometheus scrapes the gateway here, not on the public listener; nothing else skips the token.
  app.get('/metrics', (req, res) => metricsHandler(req, res));
  app.use(requireAdminToken(deps.adminToken));
  app.use(express.json({ limit: '64kb', strict: false }));

  app.post(
    '/admin/accounts',
    handler(async (req) => {
      const body = parse(createAccountBody, req.body);
      const created = await createAccount(deps.knex, { name: body.name ?? null });
      deps.keysChanged({ accountId: created.account.id, issued: true });
      return {
        status: 201,
        body: {
          object: 'account',
          id: created.account.id,
          name: created.account.name,
          created_at: Math.floor(created.account.created_at.getTime() / 1000),
          keys: { test: { ...created.test.key, secret: created.test.secret }, live: { ...created.live.key, secret: created.live.secret } },
        },
      };
    }),
  );

  app.get('/admin/accounts/:accountId', handler(async (req) => ({ status: 200, body: await accountView(deps.knex, String(req.params.accountId)) })));

  app.post(
    '/admin/accounts/:accountId/keys',
    handler(async (req) => {
      const body = parse(issueKeyBody, req.body);
      const issued = await rotateKey(deps.knex, String(req.params.accountId), body.environment, { scopes: body.scopes });
      deps.keysChanged({ accountId: String(req.params.accountId), issued: true });
      return { status: 201, body: { ...issued.key, secret: issued.secret, replaced: issued.revoked } };
    }),
  );

  app.patch(
    '/admin/keys/:keyId',
    handler(async (req) => {
      const body = parse(restrictBody, req.body);
      const restricted = await restrictKey(deps.knex, String(req.params.keyId), body.scopes);
      deps.keysChanged({ keyIds: [restricted.id] });
      return { status: 200, body: restricted };
    }),
  );

  app.post(
    '/admin/keys/:keyId/revoke',
    handler(async (req) => {
      const revoked = await revokeKeyById(deps.knex, String(req.params.keyId));
      deps.keysChanged({ keyIds: [revoked.id] });
      return { status: 200, body: revoked };
    }),
  );

  app.patch(
    '/admin/accounts/:accountId',
    handler(async (req, requestId) => {
      const accountId = String(req.params.accountId);
      const body = parse(settingsBody, req.body);
      if (!(await findAccount(deps.knex, accountId))) {
        throw new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });
      }
      if (body.rate_limit_per_minute !== undefined) {
        await setRateLimit(deps.knex, accountId, body.rate_limit_per_minute);
        deps.keysChanged({ accountId });
      }
      let inventory: unknown = null;
      if (body.verified !== undefined || body.live_balance_cents !== undefined) {
        inventory = await putInventorySettings({ ...deps.inventory, requestId }, accountId, {
          verified: body.verified,
          live_balance_cents: body.live_balance_cents,
        });
      }
      // Null when not changed by this call: the switch lives in catalogue, not here.
      let liveOrdering: boolean | null = null;
      if (body.live_ordering !== undefined) liveOrdering = await putLiveOrdering({ ...deps.catalogue, requestId }, accountId, body.live_ordering);
      return { status: 200, body: { ...(await accountView(deps.knex, accountId)), settings: inventory, live_ordering: liveOrdering } };
    }),
  );

  mountSupplierReleaseRoutes(app, deps.inventory);

  app.use((req, _res, next) => next(new ApiError('no_such_route', { message: `No admin route ${req.method} ${req.path}.` })));
  app.use(errorHandler({ baseUrl: deps.baseUrl, logger: deps.logger }));
  return app;
}
