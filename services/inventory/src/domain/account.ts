import type { AccountSettings } from '@connectivity/contracts';
import type { BalanceRecord } from './balance.ts';

/** What the operator set for an account's live ordering: whether it is verified. */
export interface AccountRecord {
  account_id: string;
  verified: boolean;
  updated_at: number;
}

/** An account never set by the operator: unverified. */
export const defaultAccount = (accountId: string, now: number): AccountRecord => ({ account_id: accountId, verified: false, updated_at: now });

/** The operator's view: verification and the live balance (record 0156). */
export const toAccountSettings = (account: AccountRecord, live: BalanceRecord | undefined): AccountSettings => ({
  object: 'account_settings',
  account_id: account.account_id,
  verified: account.verified,
  live_balance_cents: live?.available_cents ?? 0,
  live_pending_cents: live?.pending_cents ?? 0,
  low_balance_threshold_cents: live?.low_threshold_cents ?? null,
  updated_at: Math.max(account.updated_at, live?.updated_at ?? 0),
});
