import { ApiError, adminContract, type AccountSettings, type SupplierRelease, type List } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import { findAccount, setRateLimit } from '../db/accounts-repository.ts';
import { findKey, listKeys, toApiKey } from '../db/keys-repository.ts';
import { createAccount, restrictKey, revokeKeyById, rotateKey } from '../use-cases/key-admin.ts';
import type { KeyChangeNotice } from '../db/key-cache.ts';
import { forwardToService } from '../admin/forward.ts';
import type { InternalTarget } from '../admin/internal-put.ts';
import { putInventorySettings } from '../admin/inventory-settings.ts';
import { putLiveOrdering } from '../admin/live-ordering.ts';

export interface AdminRouteDeps {
  knex: Knex;
  inventory: InternalTarget;
  /** catalogue owns the live-ordering switch. */
  catalogue: InternalTarget;
  /** Announces a key or account change to every gateway instance, so none serves a stale copy. */
  keysChanged: (notice: KeyChangeNotice) => void;
}

const s = initServer();
const unix = (date: Date) => Math.floor(date.getTime() / 1000);
const requestIdOf = (res: { locals: Record<string, unknown> }) => String(res.locals.requestId);
const noAccount = (accountId: string) => new ApiError('resource_not_found', { param: 'account', message: `No account ${accountId}.` });

async function accountView(knex: Knex, accountId: string) {
  const account = await findAccount(knex, accountId);
  if (!account) throw noAccount(accountId);
  const keys = [...(await listKeys(knex, accountId, 'test', { limit: 1000 })), ...(await listKeys(knex, accountId, 'live', { limit: 1000 }))];
  return {
    object: 'account' as const,
    id: account.id,
    name: account.name,
    pinned_version: account.pinned_version,
    rate_limit_per_minute: account.rate_limit_per_minute,
    created_at: unix(account.created_at),
    keys: keys.map(toApiKey),
  };
}

/**
 * The handlers of the admin contract. Input has been validated by ts-rest against the contract
 * before any of them runs; what they own is the lookups, the changes and the change notices.
 */
export function adminRouter(deps: AdminRouteDeps) {
  const { knex } = deps;
  const releases = (requestId: string) => ({ ...deps.inventory, service: 'inventory', requestId });
  return s.router(adminContract, {
    accounts: {
      createAccount: async ({ body }) => {
        const created = await createAccount(knex, { name: body?.name ?? null });
        deps.keysChanged({ accountId: created.account.id, issued: true });
        return {
          status: 201,
          body: {
            object: 'account',
            id: created.account.id,
            name: created.account.name,
            created_at: unix(created.account.created_at),
            keys: { test: { ...created.test.key, secret: created.test.secret }, live: { ...created.live.key, secret: created.live.secret } },
          },
        };
      },
      getAccount: async ({ params }) => ({ status: 200, body: await accountView(knex, params.accountId) }),
      updateAccount: async ({ params, body, res }) => {
        const { accountId } = params;
        const requestId = requestIdOf(res);
        if (!(await findAccount(knex, accountId))) throw noAccount(accountId);
        if (body.rate_limit_per_minute !== undefined) {
          await setRateLimit(knex, accountId, body.rate_limit_per_minute);
          deps.keysChanged({ accountId });
        }
        let settings: AccountSettings | null = null;
        if (body.verified !== undefined || body.live_balance_cents !== undefined) {
          settings = (await putInventorySettings({ ...deps.inventory, requestId }, accountId, {
            verified: body.verified,
            live_balance_cents: body.live_balance_cents,
          })) as AccountSettings;
        }
        // Null when not changed by this call: the switch lives in catalogue, not here.
        const liveOrdering = body.live_ordering === undefined ? null : await putLiveOrdering({ ...deps.catalogue, requestId }, accountId, body.live_ordering);
        return { status: 200, body: { ...(await accountView(knex, accountId)), settings, live_ordering: liveOrdering } };
      },
      issueKey: async ({ params, body }) => {
        const issued = await rotateKey(knex, params.accountId, body.environment, { scopes: body.scopes });
        deps.keysChanged({ accountId: params.accountId, issued: true, ...(issued.revoked && { keyIds: [issued.revoked.id] }) });
        return { status: 201, body: { ...issued.key, secret: issued.secret, replaced: issued.revoked } };
      },
    },
    keys: {
      getKey: async ({ params }) => {
        const row = await findKey(knex, params.keyId);
        if (!row) throw new ApiError('resource_not_found', { param: 'key', message: `No key ${params.keyId}.` });
        return { status: 200, body: { ...toApiKey(row), account_id: row.account_id } };
      },
      restrictKey: async ({ params, body }) => {
        const restricted = await restrictKey(knex, params.keyId, body.scopes);
        deps.keysChanged({ keyIds: [restricted.id] });
        return { status: 200, body: restricted };
      },
      revokeKey: async ({ params }) => {
        const revoked = await revokeKeyById(knex, params.keyId);
        deps.keysChanged({ keyIds: [revoked.id] });
        return { status: 200, body: revoked };
      },
    },
    // Owned by inventory (its worker terminates the profiles): validated here, answered there.
    supplierReleases: {
      listSupplierReleases: async ({ req, res }) => {
        const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
        const page = await forwardToService(releases(requestIdOf(res)), 'GET', `/internal/supplier-releases${search}`);
        return { status: 200, body: page as List<SupplierRelease> };
      },
      retrySupplierRelease: async ({ params, res }) => {
        const path = `/internal/supplier-releases/${encodeURIComponent(params.releaseId)}/retry`;
        return { status: 200, body: (await forwardToService(releases(requestIdOf(res)), 'POST', path)) as SupplierRelease };
      },
    },
  });
}
