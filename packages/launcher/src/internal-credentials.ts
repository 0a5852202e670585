import { randomBytes } from 'node:crypto';
import { INTERNAL_CALLERS, type InternalCaller } from '@connectivity/contracts';
import { credentialDigest } from '@connectivity/platform';

/**
 * Each caller of the services has a token of its own (docs/decisions/0222): the gateway's forward
 * of public requests, its admin listener, inventory, the simulator. Where each is held: the
 * deployable and the variable it reads it from.
 */
export const CREDENTIAL_OF: Record<InternalCaller, { deployable: string; variable: 'INTERNAL_TOKEN' | 'ADMIN_INTERNAL_TOKEN' }> = {
  gateway: { deployable: 'gateway', variable: 'INTERNAL_TOKEN' },
  'gateway-admin': { deployable: 'gateway', variable: 'ADMIN_INTERNAL_TOKEN' },
  inventory: { deployable: 'inventory', variable: 'INTERNAL_TOKEN' },
  'sandbox-simulator': { deployable: 'sandbox-simulator', variable: 'INTERNAL_TOKEN' },
};

/**
 * Whom each service hears from (its INTERNAL_CALLERS): the gateway calls all four; the admin
 * listener inventory and catalogue; inventory calls catalogue; the simulator inventory. Each
 * route then admits some of them (its contract's `callers`).
 */
export const CALLERS_OF: Record<string, readonly InternalCaller[]> = {
  catalogue: ['gateway', 'gateway-admin', 'inventory'],
  inventory: ['gateway', 'gateway-admin', 'sandbox-simulator'],
  'sandbox-simulator': ['gateway'],
  notifications: ['gateway'],
};

/** A fresh token for every caller (32 random bytes each). */
export const freshCallerTokens = (): Record<InternalCaller, string> =>
  Object.fromEntries(INTERNAL_CALLERS.map((caller) => [caller, randomBytes(32).toString('base64url')])) as Record<InternalCaller, string>;

/** A service's INTERNAL_CALLERS: its callers' names and the digests of their tokens. */
export const internalCallersOf = (service: string, tokens: Record<InternalCaller, string>): string =>
  (CALLERS_OF[service] ?? []).map((caller) => `${caller}=${credentialDigest(tokens[caller])}`).join(',');

/** Each deployable's share: its own tokens (the calls it makes) and its callers' digests (the calls it takes). */
export function credentialEnvironment(deployable: string, tokens: Record<InternalCaller, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const caller of INTERNAL_CALLERS) {
    const holder = CREDENTIAL_OF[caller];
    if (holder.deployable === deployable) env[holder.variable] = tokens[caller];
  }
  const callers = internalCallersOf(deployable, tokens);
  if (callers !== '') env.INTERNAL_CALLERS = callers;
  return env;
}
