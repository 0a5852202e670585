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
  | {
      kind: 'late';
      delayMs: number;
      /** Only requests to this path (as sent, e.g. `/v2/orders/topups`): a vendor slow at one operation. Every request when absent. */
      path?: string;
    }
  | {
      kind: 'status';
      status: 429 | 500 | 502 | 503 | 504;
      count?: number;
      /** Only requests to this path (as sent, e.g. `/v2/orders/topups`); every request when absent. */
      path?: string;
    }
  /**
   * eSIM Go only (its documented 503 "Processing", `Retry-After` seconds): a valid transaction
   * order is taken and answered 503, and made `completeAfterMs` later (0, the default: at once;
   * negative: never); `count` orders get it (default: every one). The Airalo fake refuses it.
   */
  | { kind: 'processing'; retryAfterSeconds?: number; completeAfterMs?: number; count?: number };

export interface ProcessingFault {
  retryAfterSeconds: number;
  completeAfterMs: number;
}

export interface FaultState {
  delayMs: number;
  /** How long each answer is held after the request was done (the `late` fault). */
  lateMs: number;
  /** The one path the `late` fault holds answers of; every path when absent. */
  latePath?: string;
  status?: { status: number; remaining: number; path?: string | undefined };
  processing?: ProcessingFault & { remaining: number };
}

/** The processing fault as set, with its defaults; throws on a value no test means. */
export function processingFault(fault: Extract<Fault, { kind: 'processing' }>): FaultState['processing'] {
  const { retryAfterSeconds = 1, completeAfterMs = 0, count = Number.POSITIVE_INFINITY } = fault;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 0) throw new Error('retryAfterSeconds must be a whole number of seconds');
  if (typeof completeAfterMs !== 'number' || Number.isNaN(completeAfterMs)) throw new Error('completeAfterMs must be a number');
  if (count !== Number.POSITIVE_INFINITY && (!Number.isInteger(count) || count < 1)) throw new Error('count must be a positive whole number');
  return { retryAfterSeconds, completeAfterMs, remaining: count };
}

/** Uses up one order's worth of the processing fault, if one is set. */
export function takeProcessing(state: FaultState): ProcessingFault | undefined {
  const processing = state.processing;
  if (!processing) return undefined;
  processing.remaining -= 1;
  if (processing.remaining <= 0) state.processing = undefined;
  return { retryAfterSeconds: processing.retryAfterSeconds, completeAfterMs: processing.completeAfterMs };
}

/**
 * Applies the slow, late and status faults to every vendor request (never to the control routes):
 * waits `delayMs` before the request is handled at all (a purchase is made only then, whether or
 * not the caller still waits), then answers the vendor's own error for the injected status while
 * any remain; with `lateMs`, whatever the answer is, it leaves that long after it was made.
 */
export function faultMiddleware(state: FaultState, timers: Timers, answer: (status: number, res: Response) => void) {
  return (req: Request, res: Response, next: NextFunction) => {
    const path = req.originalUrl.split('?')[0];
    if (state.lateMs > 0 && (state.latePath === undefined || path === state.latePath)) holdAnswer(res, state.lateMs);
    const proceed = () => {
      const injected = state.status;
      if (injected && injected.remaining > 0 && (injected.path === undefined || injected.path === path)) {
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
