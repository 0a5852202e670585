import { putToService, type InternalTarget } from './internal-put.ts';

export interface AccountSettingsUpdate {
  verified?: boolean | undefined;
  live_balance_cents?: number | undefined;
}

/**
 * Verification and the live balance belong to inventory (a live order debits the balance in
 * its own transaction), so the admin API passes them on to inventory's internal route.
 */
export function putInventorySettings(target: InternalTarget & { requestId: string }, accountId: string, update: AccountSettingsUpdate): Promise<unknown> {
  return putToService({ ...target, service: 'inventory' }, `/internal/accounts/${encodeURIComponent(accountId)}`, update);
}
