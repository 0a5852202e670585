import { Router } from 'express';
import { isDraining } from '../service/drain.ts';

export type ReadinessCheck = () => Promise<void>;

/**
 * `/healthz`: the process is up. `/readyz`: every dependency answers (database, bus), so an
 * orchestrator only routes traffic to an instance that can serve it.
 */
export function healthRoutes(checks: Record<string, ReadinessCheck>): Router {
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
    const ready = results.every(([, status]) => status === 'ok');
    res.status(ready ? 200 : 503).json({ status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
  });
  return router;
}
