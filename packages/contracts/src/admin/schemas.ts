import { z } from 'zod';
import { accountSettingsSchema } from '../internal/inventory-accounts.ts';
import { apiKeySchema } from '../schemas/api-key.ts';
import { SCOPES } from '../schemas/enums.ts';
import { titled } from '../schemas/titled.ts';
import { ID_PREFIXES, environmentSchema, idSchema, unixSeconds } from '../schemas/primitives.ts';

// The operator's objects: what the admin API answers. Secrets appear only in the answer that issues them.

const scopesSchema = z.array(z.enum(SCOPES)).min(1);

/** A key as issued: the record plus its secret, shown this once. */
export const issuedApiKeySchema = titled('IssuedApiKey', apiKeySchema.extend({ secret: z.string().describe('The secret, shown only in this answer.') }));
export type IssuedApiKey = z.infer<typeof issuedApiKeySchema>;

export const createdAccountSchema = titled(
  'CreatedAccount',
  z.object({
    object: z.literal('account'),
    id: idSchema(ID_PREFIXES.account),
    name: z.string().nullable(),
    created_at: unixSeconds,
    keys: z.object({ test: issuedApiKeySchema, live: issuedApiKeySchema }),
  }),
);
export type CreatedAccount = z.infer<typeof createdAccountSchema>;

export const accountViewSchema = titled(
  'Account',
  z.object({
    object: z.literal('account'),
    id: idSchema(ID_PREFIXES.account),
    name: z.string().nullable(),
    pinned_version: z.string().nullable().describe('The version pinned at the account’s first call; null before it.'),
    rate_limit_per_minute: z.number().int().min(1).nullable(),
    created_at: unixSeconds,
    keys: z.array(apiKeySchema).describe('Every key of the account, test then live; never a secret.'),
  }),
);
export type AccountView = z.infer<typeof accountViewSchema>;

/** The account after a settings change, with what the owning services answered (null: not changed by this call). */
export const updatedAccountSchema = titled(
  'UpdatedAccount',
  accountViewSchema.extend({
    settings: accountSettingsSchema.nullable(),
    live_ordering: z.boolean().nullable(),
  }),
);
export type UpdatedAccount = z.infer<typeof updatedAccountSchema>;

export const rotatedApiKeySchema = titled(
  'RotatedApiKey',
  issuedApiKeySchema.extend({
    // A fresh object of the same shape: the titled ApiKey made nullable would clash with ApiKey in the document.
    replaced: z.object(apiKeySchema.shape).nullable().describe('The key this one replaced, now revoked; null when there was none.'),
  }),
);
export type RotatedApiKey = z.infer<typeof rotatedApiKeySchema>;

/** A key record with the account it belongs to: how a tool holding a key's id finds its account. */
export const ownedApiKeySchema = titled('OwnedApiKey', apiKeySchema.extend({ account_id: idSchema(ID_PREFIXES.account) }));
export type OwnedApiKey = z.infer<typeof ownedApiKeySchema>;

export const createAccountBodySchema = z.object({ name: z.string().min(1).max(200).optional() }).strict();
export const issueKeyBodySchema = z
  .object({
    environment: environmentSchema,
    scopes: scopesSchema.optional(),
    /**
     * An extra test key that does not replace the account's own (sandbox tools that must make
     * `api_key.*` events happen); revoke it when done. Without it the call is a rotation.
     */
    throwaway: z.boolean().optional(),
  })
  .strict();
export const restrictKeyBodySchema = z.object({ scopes: scopesSchema }).strict();
export const updateAccountBodySchema = z
  .object({
    verified: z.boolean().optional(),
    live_balance_cents: z.number({ invalid_type_error: 'must be an integer' }).int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    low_balance_threshold_cents: z.number({ invalid_type_error: 'must be an integer' }).int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    rate_limit_per_minute: z.number({ invalid_type_error: 'must be an integer' }).int().min(1).max(1_000_000).nullable().optional(),
    live_ordering: z.boolean().optional(),
  })
  .strict();

/** A body-less call: nothing, or an empty object; any member is an unknown parameter. */
export const emptyBodySchema = z.object({}).strict().optional();
