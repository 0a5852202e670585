/**
 * Whom an Idempotency-Key belongs to: the account and environment, not the API key that sent it
 * (Stripe's rule, record 0200). A rotation issues a new key id, and a retry sent with the new
 * key must still find the first request's record, or a second live purchase would be made. The
 * records' `key_id` column holds this owner since record 0200.
 */
export const idempotencyOwner = (accountId: string, environment: string): string => `${accountId}/${environment}`;
