import { ApiError, type Environment, type EsimState } from '@connectivity/contracts';

/** The moves out of each state (record 0252). `expired` is final. */
export const TRANSITIONS: Readonly<Record<EsimState, readonly EsimState[]>> = {
  released: ['installed', 'expired'],
  installed: ['active', 'expired'],
  active: ['suspended', 'expired'],
  suspended: ['active', 'expired'],
  expired: [],
};

/** Moves only the handset and the network make; a live key cannot make them by PATCH. */
const DEVICE_MOVES: readonly EsimState[] = ['installed', 'active'];

/** The moves a live key may PATCH: suspend, resume and cancel. */
const LIVE_PATCH_MOVES: ReadonlySet<string> = new Set([
  'active>suspended',
  'suspended>active',
  ...['released', 'installed', 'active', 'suspended'].map((s) => `${s}>expired`),
]);

export type PatchPlan = { kind: 'unchanged' } | { kind: 'move'; from: EsimState; to: EsimState };

export function canMove(from: EsimState, to: EsimState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The states a caller in `environment` may PATCH to from `from`. */
export function allowedPatchTargets(from: EsimState, environment: Environment): EsimState[] {
  return TRANSITIONS[from].filter((to) => environment === 'test' || LIVE_PATCH_MOVES.has(`${from}>${to}`));
}

/**
 * What a PATCH to `to` does to an eSIM in `from`: nothing (already there), a move, or
 * 409 `invalid_state_transition` naming the current state and the allowed targets.
 */
export function planPatch(from: EsimState, to: EsimState, environment: Environment): PatchPlan {
  if (from === to) return { kind: 'unchanged' };
  const allowed = allowedPatchTargets(from, environment);
  if (allowed.includes(to)) return { kind: 'move', from, to };

  const targets = allowed.length > 0 ? allowed.join(', ') : 'none';
  const detail = `current state: ${from}; allowed targets: ${allowed.length > 0 ? allowed.join(', ') : 'none (expired is final)'}`;
  let message: string;
  if (environment === 'live' && canMove(from, to) && DEVICE_MOVES.includes(to)) {
    message = `A live eSIM moves to \`${to}\` only when the device does it; from \`${from}\` a live key may move it to: ${targets}.`;
  } else if (from === 'expired') {
    message = 'The eSIM is `expired`, which is final: it cannot move to any other state.';
  } else {
    message = `An eSIM cannot move from \`${from}\` to \`${to}\`; from \`${from}\` it may move to: ${targets}.`;
  }
  return fail(message, detail);
}

function fail(message: string, detail: string): never {
  throw new ApiError('invalid_state_transition', { param: 'state', message, detail });
}
