import type { NextFunction, Request, Response } from 'express';
import type { Timers } from './timers.ts';

/** Faults a test puts on a fake. `down` is handled by the server (no listener at all). */
export type Fault =
  | { kind: 'down'; /** Comes back by itself after this long (else only `clearFaults()` brings it back). */ forMs?: number }
  | { kind: 'slow'; delayMs: number }
  /**
   * The request is done at once (a purchase is made and counted) and only its answer waits: the
   * window where the vendor has acted and the caller does not know it yet.
   */
  | { kind: 'late'; delayMs: number }
  | { kind: 'status'; status: 429 | 500 | 502 | 503 | 504; count?: number };

export interface FaultState {
  delayMs: number;
  /** How long each answer is held after the request was done (the `late` fault). */
  lateMs: number;
  status?: { status: number; remaining: number };
}

/**
 * Applies the slow, late and status faults to every vendor request (never to the control routes):
 * waits `delayMs` before the request is handled at all (a purchase is made only then, whether or
 * not the caller still waits), then answers the vendor's own error for the injected status while
 * any remain; with `lateMs`, whatever the answer is, it leaves that long after it was made.
 */
export function faultMiddleware(state: FaultState, timers: Timers, answer: (status: number, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (state.lateMs > 0) holdAnswer(res, state.lateMs);
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
    if (state.delayMs > 0) timers.after(state.delayMs, proceed);
    else proceed();
  };
}

/** Sends `res`'s answer `ms` after the handler ended it (what the handler did is already done). */
function holdAnswer(res: Response, ms: number): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((...args: unknown[]) => {
    setTimeout(() => end(...args), ms);
    return res;
  }) as Response['end'];
}
