import { internalContract } from '@connectivity/contracts';
import { claimOf, getCaller } from '@connectivity/platform';
import { initServer } from '@ts-rest/express';
import { recordUsage, type RecordUsageDeps } from '../use-cases/record-usage.ts';

const s = initServer();

/** POST /internal/esims/{id}/usage: the sandbox simulator's usage, applied by the life-cycle rules. */
export function internalUsageRouter(deps: RecordUsageDeps) {
  return s.router(internalContract.inventory, {
    recordUsage: async ({ params, body, res }) => ({
      status: 200,
      body: await recordUsage(deps, getCaller(res), params.id, body.bytes, claimOf(res)),
    }),
  });
}
