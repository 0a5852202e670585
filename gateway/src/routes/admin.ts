import { ApiError, adminContract } from '@connectivity/contracts';
import { initServer } from '@ts-rest/express';
import type { Knex } from 'knex';
import type { OperatorServices } from '../clients/operator-services.ts';
import { findKey } from '../db/keys-repository.ts';
import { toApiKey } from '../domain/api-key.ts';
import type { KeyChangeNotice } from '../domain/key-change.ts';
import { unixSeconds } from '../domain/unix-time.ts';
import { createAccount } from '../use-cases/create-account.ts';
import { restrictKey } from '../use-cases/restrict-key.ts';
import { revokeKeyById } from '../use-cases/revoke-key.ts';
import { issueThrowawayKey } from '../use-cases/issue-throwaway-key.ts';
import { rotateKey } from '../use-cases/rotate-key.ts';
import { updateAccount } from '../use-cases/update-account.ts';
import { viewAccount } from '../use-cases/view-account.ts';

export interface AdminRouteDeps {
  knex: Knex;
  /** inventory (verification, balance, supplier releases) and catalogue (live ordering). */
  services: OperatorServices;
  /** Announces a key or account change to every gateway instance, so none serves a stale copy. */
  keysChanged: (notice: KeyChangeNotice) => void;
}

const s = initServer();
const requestIdOf = (res: { locals: Record<string, unknown> }) => String(res.locals.requestId);

/**
 * The handlers of the admin contract. Input has been validated by ts-rest against the contract
 * before any of them runs; each calls its use case, announces what changed about keys, and answers.
 */
export function adminRouter(deps: AdminRouteDeps) {
  const { knex, services } = deps;
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
            created_at: unixSeconds(created.account.created_at),
            keys: { test: { ...created.test.key, secret: created.test.secret }, live: { ...created.live.key, secret: created.live.secret } },
          },
        };
      },
      getAccount: async ({ params }) => ({ status: 200, body: await viewAccount(knex, params.accountId) }),
      creditAccount: async ({ params, body, res }) => {
        await viewAccount(knex, params.accountId);
        return { status: 201, body: await services.creditAccount(params.accountId, body, requestIdOf(res)) };
      },
      updateAccount: async ({ params, body, res }) => ({ status: 200, body: await updateAccount(deps, params.accountId, body, requestIdOf(res)) }),
      issueKey: async ({ params, body }) => {
        if (body.throwaway) {
          const extra = await issueThrowawayKey(knex, params.accountId, body.environment, body.scopes);
          deps.keysChanged({ accountId: params.accountId, issued: true });
          return { status: 201, body: { ...extra.key, secret: extra.secret, replaced: null } };
        }
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
    // Owned by inventory (the ledger): validated here, answered there.
    refunds: {
      settleRefund: async ({ params, body, res }) => ({ status: 200, body: await services.settleRefund(params.refundId, body.status, requestIdOf(res)) }),
    },
    // Owned by inventory (its worker terminates the profiles): validated here, answered there.
    supplierReleases: {
      listSupplierReleases: async ({ query, res }) => ({ status: 200, body: await services.listSupplierReleases(query, requestIdOf(res)) }),
      retrySupplierRelease: async ({ params, res }) => ({ status: 200, body: await services.retrySupplierRelease(params.releaseId, requestIdOf(res)) }),
    },
  });
}
