import type { AccountView } from '@connectivity/contracts';
import { toApiKey, type KeyRow } from './api-key.ts';
import { unixSeconds } from './unix-time.ts';

/** An account as the gateway keeps it: its name, version pin and rate-limit budget. */
export interface AccountRow {
  id: string;
  name: string | null;
  is_dev: boolean;
  pinned_version: string | null;
  rate_limit_per_minute: number | null;
  created_at: Date;
}

/** The operator's view of an account: its settings and every key (never a secret). */
export function presentAccount(account: AccountRow, keys: readonly KeyRow[]): AccountView {
  return {
    object: 'account',
    id: account.id,
    name: account.name,
    pinned_version: account.pinned_version,
    rate_limit_per_minute: account.rate_limit_per_minute,
    created_at: unixSeconds(account.created_at),
    keys: keys.map(toApiKey),
  };
}
