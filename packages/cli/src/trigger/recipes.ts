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
 * A rotation of the integrator's test key through the operator's admin API: the old key is
 * revoked (`api_key.revoked`), a new one issued (`api_key.issued`), and its first request made
 * (`api_key.first_used`). The new key is printed: the old one stops working.
 */
async function rotateTestKey(sandbox: Sandbox): Promise<EventMatch> {
  const keys = (await sandbox.api.apiKeys.list({ limit: 100 })).data;
  const mine = keys.find((k) => k.status === 'active' && sandbox.key.startsWith(k.prefix) && sandbox.key.endsWith(k.last4));
  if (!mine) throw new CliError('The key in use is not among the account’s active keys.');
  const admin = await sandbox.admin();
  const owned = await succeeded(admin.keys.getKey({ params: { keyId: mine.id } }));
  const rotated = await succeeded(admin.accounts.issueKey({ params: { accountId: owned.account_id }, body: { environment: 'test', scopes: mine.scopes } }));
  sandbox.out.log(`  rotated the test key: ${mine.id} revoked, ${rotated.id} issued`);
  sandbox.out.log(`  your new test key: ${rotated.secret} (the old one no longer works)`);
  sandbox.useKey(rotated.secret);
  await sandbox.api.version();
  sandbox.out.log(`  made the first request with ${rotated.id}`);
  return about(mine.id, rotated.id);
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
  'api_key.issued': { how: 'rotates your test key (admin API): a new key is issued and printed', run: rotateTestKey },
  'api_key.first_used': { how: 'rotates your test key (admin API) and makes the new key’s first request', run: rotateTestKey },
  'api_key.revoked': { how: 'rotates your test key (admin API): the key in use is revoked, a new one printed', run: rotateTestKey },
} as const satisfies Record<EventType, Recipe>;
