import { afterAll, beforeAll, describe } from 'vitest';
import { authenticatedRoutes, runCommonRouteTests } from './support/common-route-tests.ts';
import { startHarness, type Harness } from './support/harness.ts';

let h: Harness;
beforeAll(async () => {
  // A budget large enough that this file never meets the limit it is not testing.
  h = await startHarness({ RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => {
  await h?.close();
});

describe.each(authenticatedRoutes().map((entry) => [entry.key, entry] as const))('%s', (_key, entry) => {
  runCommonRouteTests(() => h, entry);
});
