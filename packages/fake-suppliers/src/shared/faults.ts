import type { NextFunction, Request, Response } from 'express';

/** Faults a test puts on a fake. `down` is handled by the server (no listener at all). */
export type Fault =
  | { kind: 'down'; /** Comes back by itself after this long (else only `clearFaults()` brings it back). */ forMs?: number }
  | { kind: 'slow'; delayMs: number }
  | { kind: 'status'; status: 429 | 500 | 502 | 503 | 504; count?: number };

export interface FaultState {
  delayMs: number;
  status?: { status: number; remaining: number };
}

/**
 * Applies the slow and status faults to every vendor request (never to the control routes):
 * waits `delayMs`, then answers the vendor's own error for the injected status while any remain.
 */
export function faultMiddleware(state: FaultState, answer: (status: number, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const proceed = () => {
      const injected = state.status;
      if (injected && injected.remaining > 0) {
        injected.remaining -= 1;
        if (injected.remaining === 0) state.status = undefined;
        answer(injected.status, res);
        return;
      }
      next();
    };
    if (state.delayMs > 0) setTimeout(proceed, state.delayMs);
    else proceed();
  };
}
