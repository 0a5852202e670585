import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose work a vendor call is (an account id, or `system` for work no account asked for): each draws
 * on its own share of the vendor's rate budget (record 0162). Set by the use case that acts for a
 * caller, read by the rate limiter, so the port's methods need not carry it. Background work that no
 * caller waits on may also say how long each of its calls may wait for room (record 0268).
 */
interface Tenancy {
  tenant: string;
  waitMs?: number;
}

const tenancy = new AsyncLocalStorage<Tenancy>();

export const SYSTEM_TENANT = 'system';

export function asTenant<T>(accountId: string, work: () => Promise<T>): Promise<T> {
  return tenancy.run({ tenant: accountId }, work);
}

/**
 * The system's own background work (the audit of the vendor's orders): its calls wait up to `waitMs`
 * each for room under the vendor's rate limits, in the system's turn, instead of failing once the
 * call's own timeout would pass (record 0268).
 */
export function asBackground<T>(waitMs: number, work: () => Promise<T>): Promise<T> {
  return tenancy.run({ tenant: SYSTEM_TENANT, waitMs }, work);
}

export const currentTenant = (): string => tenancy.getStore()?.tenant ?? SYSTEM_TENANT;

/** How long a call may wait for room under a rate limit: the background's budget, else its own timeout. */
export const currentWaitMs = (timeoutMs: number): number => tenancy.getStore()?.waitMs ?? timeoutMs;
