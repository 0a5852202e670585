import type { AccountSettings } from '@connectivity/contracts';

/** What the operator set for an account's live ordering: verification and the prepaid balance. */
export interface AccountRecord {
  account_id: string;
  verified: boolean;
  live_balance_cents: number;
  updated_at: number;
}

/** An account never set by the operator: unverified, with nothing to spend. */
export const defaultAccount = (accountId: string, now: number): AccountRecord => ({
  account_id: accountId,
  verified: false,
  live_balance_cents: 0,
  updated_at: now,
});

export const toAccountSettings = (account: AccountRecord): AccountSettings => ({ object: 'account_settings', ...account });
