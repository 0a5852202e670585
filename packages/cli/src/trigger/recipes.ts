import type { ApiEvent, Esim, EventType, Refund } from '@connectivity/contracts';
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

/** The refund a cancel opened for `esim` (an unused sandbox eSIM is refunded, record 0158). */
async function refundOf(sandbox: Sandbox, esim: Esim): Promise<Refund> {
  const answer = await sandbox.api.raw.balance.listRefunds({ query: { esim: esim.id, limit: 1 } });
  const refund = answer.status === 200 ? answer.body.data[0] : undefined;
  if (!refund) throw new CliError(`Cancelling ${esim.id} opened no refund.`);
  sandbox.out.log(`  cancelled ${esim.id}: refund ${refund.id} is ${refund.status} (${refund.amount_cents} cents)`);
  return refund;
}

/** Buys an unused eSIM, cancels it, and settles its refund as the simulated supplier would (POST /v1/test/refunds/{id}/settle). */
async function settledRefund(sandbox: Sandbox, status: 'succeeded' | 'failed'): Promise<EventMatch> {
  const refund = await refundOf(sandbox, await moveEsim(sandbox, await buyEsim(sandbox), ['expired']));
  const settled = await sandbox.api.raw.balance.settleTestRefund({
    params: { id: refund.id },
    body: { status },
    headers: { 'idempotency-key': `trigger-${refund.id}-${status}` },
  });
  if (settled.status !== 200) throw new CliError(`Settling ${refund.id} answered ${settled.status}.`);
  sandbox.out.log(`  settled ${refund.id}: ${settled.body.status}`);
  return aboutRefund(refund.id);
}

const aboutRefund =
  (id: string): EventMatch =>
  (event) =>
    objectId(event) === id;

/**
 * `balance.low`: the simulated balance set just above the price of one eSIM, with the threshold at
 * that price, then one eSIM bought, which takes it below; the balance as it was is put back after.
 */
async function lowBalance(sandbox: Sandbox): Promise<EventMatch> {
  const since = Math.floor(Date.now() / 1000);
  const before = await sandbox.api.raw.balance.getBalance({});
  if (before.status !== 200) throw new CliError(`GET /v1/balance answered ${before.status}.`);
  const bundles = (await sandbox.api.bundles.list({ limit: 100 })).data.filter((b) => !b.unlimited && b.data_mb);
  const price = Math.max(...bundles.map((b) => b.price_cents), 100);
  const set = (available: number | null, threshold: number | null) =>
    sandbox.api.raw.balance.setTestBalance({
      body: { available_cents: available, low_balance_threshold_cents: threshold },
      headers: { 'idempotency-key': `trigger-balance-${Date.now()}-${Math.random().toString(36).slice(2)}` },
    });
  await set(price + 50, price);
  sandbox.out.log(`  set the simulated balance to ${price + 50} cents, low below ${price}`);
  try {
    await buyEsim(sandbox);
  } finally {
    await set(before.body.available_cents, before.body.low_balance_threshold_cents);
    sandbox.out.log(`  put the simulated balance back (${before.body.available_cents ?? 'none'})`);
  }
  return (event) => event.environment === 'test' && (event.created_at ?? 0) >= since;
}

/**
 * `esim.expiring`: a test clock, one eSIM bought on it (a bundle of more than a day counted from purchase),
 * and the clock advanced to one day before its `expires_at` (the 1-day mark, record 0236); the test data
 * sweep removes the clock later.
 */
async function expiringEsim(sandbox: Sandbox): Promise<EventMatch> {
  const bundles = (await sandbox.api.bundles.list({ limit: 100 })).data;
  const bundle = bundles.find((b) => b.validity_start === 'purchase' && (b.duration_days ?? 0) > 1);
  if (!bundle) throw new CliError('The sandbox catalogue has no bundle of more than a day counted from purchase.');
  const clock = await sandbox.api.testClocks.create({ name: 'trigger esim.expiring' });
  const order = await sandbox.api.esims.create({ bundle: bundle.name, quantity: 1, test_clock: clock.id });
  const esim = order.esims[0];
  if (!esim?.expires_at) throw new CliError(`Order ${order.id} holds no eSIM with an expires_at.`);
  sandbox.out.log(`  bought ${esim.id} (bundle ${bundle.name}) on test clock ${clock.id}`);
  await sandbox.api.testClocks.advance(clock.id, { frozen_time: esim.expires_at - 86_400 });
  sandbox.out.log(`  advanced ${clock.id} to one day before ${esim.id} expires`);
  return about(esim.id);
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
  'refund.created': {
    how: 'buys one eSIM and cancels it unused: its refund is opened (pending)',
    run: async (s) => aboutRefund((await refundOf(s, await moveEsim(s, await buyEsim(s), ['expired']))).id),
  },
  'refund.succeeded': {
    how: 'buys one eSIM, cancels it unused, and settles its refund as succeeded (POST /v1/test/refunds/{id}/settle)',
    run: (s) => settledRefund(s, 'succeeded'),
  },
  'refund.failed': {
    how: 'buys one eSIM, cancels it unused, and settles its refund as failed (POST /v1/test/refunds/{id}/settle)',
    run: (s) => settledRefund(s, 'failed'),
  },
  'balance.low': {
    how: 'sets a simulated balance just above one eSIM with the threshold at its price, buys one, then puts the balance back',
    run: lowBalance,
  },
  'esim.topped_up': {
    how: 'buys one eSIM and tops it up with the first bundle it can take (POST /v1/esim/{id}/topups)',
    run: async (s) => {
      const esim = await buyEsim(s);
      const [offer] = (await s.api.topups.offers(esim.id, { limit: 1 })).data;
      if (!offer) throw new CliError(`No bundle can top ${esim.id} up.`);
      const topup = await s.api.topups.create(esim.id, { bundle: offer.name });
      s.out.log(`  topped ${esim.id} up with ${offer.name} (${topup.id})`);
      return about(esim.id);
    },
  },
  'esim.expiring': {
    how: 'buys one eSIM on a new test clock and advances the clock to one day before it expires (the 1-day mark)',
    run: expiringEsim,
  },
} as const satisfies Record<EventType, Recipe>;
