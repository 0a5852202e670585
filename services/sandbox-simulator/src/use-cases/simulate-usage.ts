import type { Esim } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { InventoryClient } from '../clients/inventory.ts';
import { assertTestEnvironment } from '../domain/sandbox-only.ts';

/**
 * POST /v1/test/usage: usage on a simulated eSIM, recorded by inventory, which owns the eSIM
 * (and the change, so the caller's Idempotency-Key goes along). `replayed` when inventory
 * answered a retry from its record.
 */
export async function simulateUsage(
  deps: { inventory: InventoryClient },
  caller: Caller,
  input: { esim: string; bytes: number },
  idempotencyKey: string | undefined,
): Promise<{ esim: Esim; replayed: boolean }> {
  assertTestEnvironment(caller.environment);
  return deps.inventory.recordUsage(caller, input.esim, input.bytes, idempotencyKey);
}
