import { doublingDelayMs } from '@connectivity/platform';

/**
 * The circuit of one webhook endpoint: an endpoint whose attempts keep timing out is not tried
 * for a while (open), then tried with one attempt at a time (a probe, once the cooldown is over)
 * until one ends otherwise. Each reopening doubles the cooldown, up to a maximum. Deliveries
 * held back meanwhile are not attempted, so they use up none of the retry schedule.
 */
export interface CircuitPolicy {
  /** Timeouts in a row that open the circuit. */
  threshold: number;
  /** How long it stays open the first time. */
  cooldownMs: number;
  /** The longest it stays open. */
  maxCooldownMs: number;
}

export interface CircuitState {
  timeoutsInARow: number;
  /** Null: closed. In the future: open. Past: the cooldown is over and a probe may go. */
  openUntil: Date | null;
  /** How many times it opened since it last closed (the cooldown doubles with each). */
  opens: number;
}

export const CLOSED: CircuitState = { timeoutsInARow: 0, openUntil: null, opens: 0 };

export const cooldownMs = (policy: CircuitPolicy, opens: number): number => doublingDelayMs(opens, policy.cooldownMs, policy.maxCooldownMs);

/**
 * The circuit after an attempt that ended at `at`: any end but a timeout closes it (the host
 * answered, or at least refused at once); a timeout counts, opens it at the threshold, and
 * reopens it for longer when it ends a probe. An attempt begun before the circuit opened that
 * ends while it is open changes nothing but the count.
 */
export function nextCircuit(state: CircuitState, timedOut: boolean, at: Date, policy: CircuitPolicy): CircuitState {
  if (!timedOut) return CLOSED;
  const timeoutsInARow = state.timeoutsInARow + 1;
  if (state.openUntil !== null && state.openUntil.getTime() > at.getTime()) return { ...state, timeoutsInARow };
  if (state.openUntil === null && timeoutsInARow < policy.threshold) return { ...state, timeoutsInARow };
  const opens = state.opens + 1;
  return { timeoutsInARow, opens, openUntil: new Date(at.getTime() + cooldownMs(policy, opens)) };
}
