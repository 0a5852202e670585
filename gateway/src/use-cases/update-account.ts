import type { AccountSettings, UpdatedAccount } from '@connectivity/contracts';
import type { Knex } from 'knex';
import type { OperatorServices } from '../clients/operator-services.ts';
import { findAccount, setRateLimit } from '../db/accounts-repository.ts';
import type { KeyChangeNotice } from '../domain/key-change.ts';
import { noSuchAccount, viewAccount } from './view-account.ts';

export interface AccountChange {
  rate_limit_per_minute?: number | null | undefined;
  verified?: boolean | undefined;
  live_balance_cents?: number | undefined;
  low_balance_threshold_cents?: number | null | undefined;
  live_ordering?: boolean | undefined;
}

export interface UpdateAccountDeps {
  knex: Knex;
  services: OperatorServices;
  /** Announces a change of the account to every gateway instance (its keys carry the budget). */
  keysChanged: (notice: KeyChangeNotice) => void;
}

/**
 * The operator's change of an account's settings, each where it lives: the rate-limit budget
 * here, verification, the live balance (set as an `adjustment`) and its low-balance threshold in
 * inventory, the live-ordering switch in catalogue.
 * Absent fields keep their value; what a service did not change is null in the answer.
 */
export async function updateAccount(deps: UpdateAccountDeps, accountId: string, change: AccountChange, requestId: string): Promise<UpdatedAccount> {
  const { knex } = deps;
  if (!(await findAccount(knex, accountId))) throw noSuchAccount(accountId);
  if (change.rate_limit_per_minute !== undefined) {
    await setRateLimit(knex, accountId, change.rate_limit_per_minute);
    deps.keysChanged({ accountId });
  }
  let settings: AccountSettings | null = null;
  if (change.verified !== undefined || change.live_balance_cents !== undefined || change.low_balance_threshold_cents !== undefined) {
    settings = await deps.services.putAccountSettings(
      accountId,
      { verified: change.verified, live_balance_cents: change.live_balance_cents, low_balance_threshold_cents: change.low_balance_threshold_cents },
      requestId,
    );
  }
  const liveOrdering = change.live_ordering === undefined ? null : await deps.services.putLiveOrdering(accountId, change.live_ordering, requestId);
  return { ...(await viewAccount(knex, accountId)), settings, live_ordering: liveOrdering };
}
