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

/** The public API: one router per area; each leaf key is the route's operationId. */
export const contract = c.router({
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
export type Contract = typeof contract;
export type RouteGroup = keyof Contract;
