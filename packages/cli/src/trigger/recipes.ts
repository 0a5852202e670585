import type { ApiEvent, EventType } from '@connectivity/contracts';
import { CliError, succeeded } from '../admin-client.ts';
import { buyEsim, moveEsim, type Sandbox } from './sandbox.ts';

/** How to recognise, in the event log, the event a recipe caused. */
export type EventMatch = (event: ApiEvent) => boolean;

export interface Recipe {
  /** What it does, for the help text and docs. */
  how: string;
  run(sandbox: Sandbox): Promise<EventMatch>;
}

const objectId = (event: ApiEvent): unknown => (event.data.object as { id?: unknown } | undefined)?.id;
const about =
  (...ids: string[]): EventMatch =>
  (event) =>
    ids.includes(String(objectId(event)));

/**
 * The `api_key.*` events of a throwaway test key of the account (the operator's admin API issues
 * it beside the account's own key, which keeps working): issued (`api_key.issued`), used once
 * (`api_key.first_used`), revoked (`api_key.revoked`). The key the README exports and the CLI
 * uses is never touched.
 */
async function throwawayKeyEvents(sandbox: Sandbox): Promise<EventMatch> {
  const keys = (await sandbox.api.apiKeys.list({ limit: 100 })).data;
  const mine = keys.find((k) => k.status === 'active' && sandbox.key.startsWith(k.prefix) && sandbox.key.endsWith(k.last4));
  if (!mine) throw new CliError('The key in use is not among the account’s active keys.');
  const admin = await sandbox.admin();
  const owned = await succeeded(admin.keys.getKey({ params: { keyId: mine.id } }));
  const extra = await succeeded(
    admin.accounts.issueKey({ params: { accountId: owned.account_id }, body: { environment: 'test', scopes: ['catalogue:read'], throwaway: true } }),
  );
  sandbox.out.log(`  issued a throwaway test key ${extra.id} (your key ${mine.id} is untouched)`);
  await sandbox.withKey(extra.secret).version();
  sandbox.out.log(`  made the first request with ${extra.id}`);
  await succeeded(admin.keys.revokeKey({ params: { keyId: extra.id }, body: {} }));
  sandbox.out.log(`  revoked ${extra.id}`);
  return about(extra.id);
}

/**
 * One recipe per event type of the catalogue: the calls that make the sandbox emit it. Typed
 * against the catalogue, so a new event type does not compile until it has a recipe.
 */
export const TRIGGER_RECIPES = {
  'esim.released': {
    how: 'buys one eSIM',
    run: async (s) => about((await buyEsim(s)).id),
  },
  'esim.installed': {
    how: 'buys one eSIM and moves it to installed (PATCH, as the handset would)',
    run: async (s) => about((await moveEsim(s, await buyEsim(s), ['installed'])).id),
  },
  'esim.activated': {
    how: 'buys one eSIM and moves it to installed, then active',
    run: async (s) => about((await moveEsim(s, await buyEsim(s), ['installed', 'active'])).id),
  },
  'esim.suspended': {
    how: 'buys one eSIM and moves it to installed, active, then suspended',
    run: async (s) => about((await moveEsim(s, await buyEsim(s), ['installed', 'active', 'suspended'])).id),
  },
  'esim.expired': {
    how: 'buys one eSIM and cancels it (moves it to expired)',
    run: async (s) => about((await moveEsim(s, await buyEsim(s), ['expired'])).id),
  },
  'esim.usage.threshold': {
    how: 'buys one eSIM and uses half its data (POST /v1/test/usage), crossing the 50% threshold',
    run: async (s) => {
      const esim = await buyEsim(s);
      const limit = esim.data_limit_bytes;
      if (!limit) throw new CliError(`${esim.id} has no data limit.`);
      const used = await s.api.testHelpers.usage({ esim: esim.id, bytes: Math.ceil(limit / 2) });
      s.out.log(`  used ${Math.ceil(limit / 2)} bytes of ${limit} on ${used.id} (now ${used.state})`);
      return about(esim.id);
    },
  },
  'api_key.issued': { how: 'issues a throwaway test key (admin API), uses it once and revokes it; your key keeps working', run: throwawayKeyEvents },
  'api_key.first_used': {
    how: 'issues a throwaway test key (admin API), makes its first request and revokes it; your key keeps working',
    run: throwawayKeyEvents,
  },
  'api_key.revoked': { how: 'issues a throwaway test key (admin API), uses it once and revokes it; your key keeps working', run: throwawayKeyEvents },
} as const satisfies Record<EventType, Recipe>;
