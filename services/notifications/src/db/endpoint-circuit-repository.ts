import type { Knex } from 'knex';
import { nextCircuit, type CircuitPolicy, type CircuitState } from '../domain/endpoint-circuit.ts';

interface CircuitRow {
  timeouts_in_a_row: number;
  circuit_open_until: Date | null;
  circuit_opens: number;
}

/**
 * Moves the endpoint's circuit on after an attempt that timed out, in the attempt's transaction,
 * under the endpoint's row lock (attempts to one endpoint end side by side). Resolves with the
 * new state when this attempt opened or reopened it. (Any other end closes the circuit: see
 * `recordAttempt`.)
 */
export async function updateCircuit(trx: Knex.Transaction, endpointId: string, at: Date, policy: CircuitPolicy): Promise<CircuitState | undefined> {
  const row = (await trx('notifications.endpoints')
    .select('timeouts_in_a_row', 'circuit_open_until', 'circuit_opens')
    .where({ id: endpointId })
    .forUpdate()
    .first()) as CircuitRow | undefined;
  if (!row) return undefined;
  const before: CircuitState = {
    timeoutsInARow: row.timeouts_in_a_row,
    openUntil: row.circuit_open_until && new Date(row.circuit_open_until),
    opens: row.circuit_opens,
  };
  const after = nextCircuit(before, true, at, policy);
  await trx('notifications.endpoints')
    .where({ id: endpointId })
    .update({ timeouts_in_a_row: after.timeoutsInARow, circuit_open_until: after.openUntil, circuit_opens: after.opens });
  return after.opens > before.opens ? after : undefined;
}

/** The columns that close an endpoint's circuit (its owner changed it: try it again at once). */
export const CLOSED_CIRCUIT = { timeouts_in_a_row: 0, circuit_open_until: null, circuit_opens: 0 };
