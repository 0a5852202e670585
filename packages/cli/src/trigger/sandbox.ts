import type { Esim, EsimState } from '@connectivity/contracts';
import type { Connectivity } from '@connectivity/sdk';
import type { AdminClient } from '../admin-client.ts';
import { CliError } from '../admin-client.ts';
import type { Output } from '../command.ts';

/**
 * What a recipe works with: the SDK on the integrator's test key, the operator's admin API when a
 * recipe needs it, and where steps are told.
 */
export interface Sandbox {
  api: Connectivity;
  key: string;
  out: Output;
  admin(): Promise<AdminClient>;
  /** The SDK on another key of the account, for one call (a throwaway key's first request). */
  withKey(key: string): Connectivity;
}

/** Buys one eSIM of the smallest bundle with a data limit (so usage thresholds can be reached). */
export async function buyEsim(sandbox: Sandbox): Promise<Esim> {
  const bundles = (await sandbox.api.bundles.list({ limit: 100 })).data.filter((b) => !b.unlimited && b.data_mb);
  const bundle = bundles.sort((a, b) => (a.data_mb ?? 0) - (b.data_mb ?? 0))[0];
  if (!bundle) throw new CliError('The sandbox catalogue has no bundle with a data limit to buy.');
  const order = await sandbox.api.esims.create({ bundle: bundle.name, quantity: 1 });
  const esim = order.esims[0];
  if (!esim) throw new CliError(`Order ${order.id} holds no eSIM.`);
  sandbox.out.log(`  bought ${esim.id} (bundle ${bundle.name}, order ${order.id}): released`);
  return esim;
}

/** Moves an eSIM along the life cycle, one PATCH per state, saying each move. */
export async function moveEsim(sandbox: Sandbox, esim: Esim, states: readonly EsimState[]): Promise<Esim> {
  let current = esim;
  for (const state of states) {
    current = await sandbox.api.esims.update(current.id, { state });
    sandbox.out.log(`  moved ${current.id} to ${current.state}`);
  }
  return current;
}
