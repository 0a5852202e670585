import { contract, internalAccountsContract, internalContract, internalInventoryReleasesContract } from '@connectivity/contracts';
import { createCursorCodec, createServiceApp, operatorRouteOptions, serviceFrame, statementBatcher, tsRestOptions } from '@connectivity/platform';
import { createExpressEndpoints } from '@ts-rest/express';
import type { Express } from 'express';
import { SCHEMA } from './db/schema.ts';
import { testEsimsTaker } from './db/test-quotas.ts';
import { balanceRouter } from './routes/balance.ts';
import { esimRouter } from './routes/esims.ts';
import { internalAccountsRouter } from './routes/internal-accounts.ts';
import { internalReleasesRouter } from './routes/internal-releases.ts';
import { internalUsageRouter } from './routes/internal-usage.ts';
import { testClockRouter } from './routes/test-clocks.ts';
import { topupRouter } from './routes/topups.ts';
import { createTopupClient } from './clients/topup-client.ts';
import type { InventoryContext } from './context.ts';

/** The inventory HTTP app; never listens, so tests drive it with supertest. */
export function createApp(context: InventoryContext): Express {
  const { config, logger, catalogue } = context;
  const knex = context.db.knex;
  const cursors = createCursorCodec(config.CURSOR_SECRET);
  // Sandbox orders that arrive while one is being written share the next statement.
  const orders = statementBatcher(knex, { name: 'sandbox orders', max: 16 });
  // Top-ups ask catalogue for the offers of a profile (records 0240, 0244).
  const topups = createTopupClient({
    baseUrl: config.CATALOGUE_URL,
    internalToken: config.INTERNAL_TOKEN ?? '',
    timeoutMs: config.CATALOGUE_TIMEOUT_MS,
    logger,
  });

  return createServiceApp({
    ...serviceFrame(context),
    idempotency: { knex, schema: SCHEMA, leaseMs: config.IDEMPOTENCY_LEASE_MS },
    routes: (app) => {
      createExpressEndpoints(
        contract.esim,
        esimRouter({
          knex,
          catalogue,
          logger,
          cursors,
          orders,
          intentCheckAfterMs: config.PURCHASE_INTENT_CHECK_AFTER_MS,
          maxLiveInFlight: config.LIVE_ORDERS_IN_FLIGHT_PER_ACCOUNT,
          purchaseInDoubtMs: config.PURCHASE_IN_DOUBT_MS,
          refundCheckAfterMs: config.REFUND_CHECK_AFTER_MS,
          testEsimsPerDay: config.TEST_ESIMS_PER_DAY,
          testEsimsTaker: testEsimsTaker(knex),
        }),
        app,
        tsRestOptions,
      );
      createExpressEndpoints(contract.balance, balanceRouter({ knex, cursors }), app, tsRestOptions);
      createExpressEndpoints(
        contract.topups,
        topupRouter({
          knex,
          topups,
          cursors,
          logger,
          intentCheckAfterMs: config.PURCHASE_INTENT_CHECK_AFTER_MS,
          maxLiveInFlight: config.LIVE_ORDERS_IN_FLIGHT_PER_ACCOUNT,
          purchaseInDoubtMs: config.PURCHASE_IN_DOUBT_MS,
        }),
        app,
        tsRestOptions,
      );
      createExpressEndpoints(
        contract.testClocks,
        testClockRouter({
          knex,
          logger,
          cursors,
          maxClocks: config.TEST_CLOCKS_PER_ACCOUNT,
          advanceBatch: config.TEST_CLOCK_ADVANCE_BATCH,
        }),
        app,
        tsRestOptions,
      );
      createExpressEndpoints(internalContract.inventory, internalUsageRouter({ knex }), app, tsRestOptions);
      createExpressEndpoints(internalAccountsContract, internalAccountsRouter(knex), app, operatorRouteOptions);
      createExpressEndpoints(internalInventoryReleasesContract, internalReleasesRouter({ knex, cursors }), app, operatorRouteOptions);
    },
  });
}
