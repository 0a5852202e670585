import { initContract } from '@ts-rest/core';
import { apiKeyRoutes } from './api-keys.ts';
import { balanceRoutes } from './balance.ts';
import { catalogueRoutes } from './catalogue.ts';
import { esimRoutes } from './esim.ts';
import { eventRoutes } from './events.ts';
import { metaRoutes } from './meta.ts';
import { requestLogRoutes } from './request-logs.ts';
import { testClockRoutes } from './test-clocks.ts';
import { testHelperRoutes } from './test-helpers.ts';
import { topupRoutes } from './topups.ts';
import { webhookRoutes } from './webhooks.ts';

const c = initContract();

/**
 * The public API's type, spelled out by area: the inferred type of the whole router is too
 * long for TypeScript to write into the SDK's declaration file (TS7056), so each area's own
 * type stands in for it. `c.router` without options returns its argument's type unchanged.
 */
export type Contract = {
  meta: typeof metaRoutes;
  apiKeys: typeof apiKeyRoutes;
  requestLogs: typeof requestLogRoutes;
  catalogue: typeof catalogueRoutes;
  esim: typeof esimRoutes;
  topups: typeof topupRoutes;
  balance: typeof balanceRoutes;
  events: typeof eventRoutes;
  webhooks: typeof webhookRoutes;
  test: typeof testHelperRoutes;
  testClocks: typeof testClockRoutes;
};

/** The public API: one router per area; each leaf key is the route's operationId. */
export const contract: Contract = c.router({
  meta: metaRoutes,
  apiKeys: apiKeyRoutes,
  requestLogs: requestLogRoutes,
  catalogue: catalogueRoutes,
  esim: esimRoutes,
  topups: topupRoutes,
  balance: balanceRoutes,
  events: eventRoutes,
  webhooks: webhookRoutes,
  test: testHelperRoutes,
  testClocks: testClockRoutes,
});
export type RouteGroup = keyof Contract;
