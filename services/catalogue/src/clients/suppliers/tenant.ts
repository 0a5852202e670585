import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose work a vendor call is (an account id, or `system` for work no account asked for): each draws
 * on its own share of the vendor's rate budget (record 0162). Set by the use case that acts for a
 * caller, read by the rate limiter, so the port's methods need not carry it.
 */
const tenant = new AsyncLocalStorage<string>();

export const SYSTEM_TENANT = 'system';

export function asTenant<T>(accountId: string, work: () => Promise<T>): Promise<T> {
  return tenant.run(accountId, work);
}

export const currentTenant = (): string => tenant.getStore() ?? SYSTEM_TENANT;
