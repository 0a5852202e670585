import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { listSupplierReleasesQuerySchema, supplierReleaseListSchema, supplierReleaseSchema } from '../internal/inventory-releases.ts';
import { creditAccountBodySchema, settleRefundBodySchema } from '../internal/inventory-accounts.ts';
import { errorResponses } from '../routes/operation.ts';
import { balanceTransactionSchema } from '../schemas/balance.ts';
import { refundSchema } from '../schemas/refund.ts';
import { apiKeySchema } from '../schemas/api-key.ts';
import {
  accountViewSchema,
  createAccountBodySchema,
  createdAccountSchema,
  emptyBodySchema,
  issueKeyBodySchema,
  ownedApiKeySchema,
  restrictKeyBodySchema,
  rotatedApiKeySchema,
  updateAccountBodySchema,
  updatedAccountSchema,
} from './schemas.ts';

const c = initContract();

// Path ids are not format-checked (as on the public API): an unknown or malformed id is 404 resource_not_found.
const pathId = z.string().min(1).max(200);
const accountPath = z.object({ accountId: pathId.describe('The account id (`acct_...`).') });
const keyPath = z.object({ keyId: pathId.describe('The key id (`key_...`).') });

// Every admin call can fail on the admin token (401) or inside the gateway (500).
const always = ['key_missing', 'key_invalid', 'internal_error'] as const;

/** Accounts: created with both keys, shown, and their settings (some owned by inventory and catalogue). */
export const adminAccountRoutes = c.router({
  createAccount: {
    method: 'POST',
    path: '/admin/accounts',
    summary: 'Create an account with a test and a live key; the secrets are shown this once',
    body: createAccountBodySchema.optional(),
    responses: { 201: createdAccountSchema, ...errorResponses([...always, 'invalid_parameter']) },
  },
  getAccount: {
    method: 'GET',
    path: '/admin/accounts/:accountId',
    summary: 'An account and its keys (never a secret)',
    pathParams: accountPath,
    responses: { 200: accountViewSchema, ...errorResponses([...always, 'resource_not_found']) },
  },
  updateAccount: {
    method: 'PATCH',
    path: '/admin/accounts/:accountId',
    summary:
      'Verification and live balance (inventory), the live-ordering switch (catalogue), and the rate limit (the gateway); absent fields keep their value',
    pathParams: accountPath,
    body: updateAccountBodySchema,
    responses: { 200: updatedAccountSchema, ...errorResponses([...always, 'invalid_parameter', 'resource_not_found']) },
  },
  creditAccount: {
    method: 'POST',
    path: '/admin/accounts/:accountId/credits',
    summary: 'Add money to the account’s live balance: a `credit` balance transaction (inventory)',
    pathParams: accountPath,
    body: creditAccountBodySchema,
    responses: { 201: balanceTransactionSchema, ...errorResponses([...always, 'missing_parameter', 'invalid_parameter', 'resource_not_found']) },
  },
  issueKey: {
    method: 'POST',
    path: '/admin/accounts/:accountId/keys',
    summary:
      'Issue the account’s key for an environment, revoking the active one in the same transaction (rotation); or, with `throwaway`, an extra test key beside it',
    pathParams: accountPath,
    body: issueKeyBodySchema,
    responses: { 201: rotatedApiKeySchema, ...errorResponses([...always, 'missing_parameter', 'invalid_parameter', 'resource_not_found']) },
  },
});

/** Keys by id: read (with their account), restrict, revoke. */
export const adminKeyRoutes = c.router({
  getKey: {
    method: 'GET',
    path: '/admin/keys/:keyId',
    summary: 'A key record with its account id',
    pathParams: keyPath,
    responses: { 200: ownedApiKeySchema, ...errorResponses([...always, 'resource_not_found']) },
  },
  restrictKey: {
    method: 'PATCH',
    path: '/admin/keys/:keyId',
    summary: 'Set the scopes of a key',
    pathParams: keyPath,
    body: restrictKeyBodySchema,
    responses: { 200: apiKeySchema, ...errorResponses([...always, 'missing_parameter', 'invalid_parameter', 'resource_not_found']) },
  },
  revokeKey: {
    method: 'POST',
    path: '/admin/keys/:keyId/revoke',
    summary: 'Revoke a key; revoking a revoked key changes nothing',
    pathParams: keyPath,
    body: emptyBodySchema,
    responses: { 200: apiKeySchema, ...errorResponses([...always, 'invalid_parameter', 'resource_not_found']) },
  },
});

/** Refunds a vendor reviews by hand and decides by notice (Airalo): the operator records the decision (inventory). */
export const adminRefundRoutes = c.router({
  settleRefund: {
    method: 'POST',
    path: '/admin/refunds/:refundId/settle',
    summary: 'Record the vendor’s decision on a pending refund: `failed` (rejected) or `succeeded` (credited)',
    pathParams: z.object({ refundId: pathId.describe('The refund id (`re_...`).') }),
    body: settleRefundBodySchema,
    responses: {
      200: refundSchema,
      ...errorResponses([...always, 'missing_parameter', 'invalid_parameter', 'resource_not_found', 'invalid_state_transition']),
    },
  },
});

/** Supplier releases, owned by inventory: the admin API passes these on to its internal routes. */
export const adminSupplierReleaseRoutes = c.router({
  listSupplierReleases: {
    method: 'GET',
    path: '/admin/supplier-releases',
    summary: 'Supplier releases, newest first, optionally of one status',
    query: listSupplierReleasesQuerySchema,
    responses: { 200: supplierReleaseListSchema, ...errorResponses([...always, 'invalid_parameter']) },
  },
  retrySupplierRelease: {
    method: 'POST',
    path: '/admin/supplier-releases/:releaseId/retry',
    summary: 'Put an abandoned (or pending) release back to pending, due now',
    pathParams: z.object({ releaseId: pathId.describe('The release id (`ord_...`).') }),
    body: emptyBodySchema,
    responses: {
      200: supplierReleaseSchema,
      ...errorResponses([...always, 'invalid_parameter', 'resource_not_found', 'invalid_state_transition']),
    },
  },
});
