import { Router } from 'express';
import { isDraining } from '../service/drain.ts';

export type ReadinessCheck = () => Promise<void>;

export interface HealthOptions {
  /**
   * How long one round of checks answers every `/readyz`: probes need no key, so without it
   * anyone could make each call ping the database and the bus. Default 1 s.
   */
  cacheMs?: number;
}

type Readiness = { ready: boolean; checks: Record<string, 'ok' | 'unavailable'> };

/**
 * `/healthz`: the process is up. `/readyz`: every dependency answers (database, bus), so an
 * orchestrator only routes traffic to an instance that can serve it. Concurrent and repeated
 * calls share one round of checks for `cacheMs`.
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>, options: HealthOptions = {}): Router {
  const cacheMs = options.cacheMs ?? 1_000;
  let last: { at: number; readiness: Promise<Readiness> } | undefined;

  const checkAll = async (): Promise<Readiness> => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await check();
          return [name, 'ok'] as const;
        } catch {
          return [name, 'unavailable'] as const;
        }
      }),
    );
    return { ready: results.every(([, status]) => status === 'ok'), checks: Object.fromEntries(results) };
  };
  const readiness = (): Promise<Readiness> => {
    const now = performance.now();
    if (!last || now - last.at >= cacheMs) last = { at: now, readiness: checkAll() };
    return last.readiness;
  };

  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    // A stopping process is not ready, whatever its dependencies say: traffic must move away.
    if (isDraining()) {
      res.status(503).json({ status: 'draining', checks: {} });
      return;
    }
    const { ready, checks: results } = await readiness();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks: results });
  });
  return router;
}
