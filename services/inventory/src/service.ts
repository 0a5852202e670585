import {
  IDEMPOTENCY_TABLE,
  idempotencyStore,
  startIdempotencyPurge,
  startOutboxRelay,
  type ServiceDefinition,
  type ServiceRuntime,
} from '@connectivity/platform';
import { createApp } from './app.ts';
import type { InventoryContext } from './context.ts';
import { createCatalogueClient } from './clients/catalogue-client.ts';
import { createTopupClient } from './clients/topup-client.ts';
import { loadConfig, type Config } from './config.ts';
import { startSupplierReportsConsumer } from './consumers/supplier-reports.ts';
import { migrations } from './db/migrations/index.ts';
import { SCHEMA } from './db/schema.ts';
import { startExpirySweeper } from './workers/expiry-sweeper.ts';
import { startExpiringNotifier } from './workers/expiring-notifier.ts';
import { startPurchaseIntentWorker } from './workers/purchase-intent-worker.ts';
import { startReconciliationWorker } from './workers/reconciliation-worker.ts';
import { startRefundWorker } from './workers/refund-worker.ts';
import { startSupplierOrderAudit } from './workers/supplier-order-audit.ts';
import { startSupplierReportRetention } from './workers/supplier-report-retention.ts';
import { startSupplierReportWorker } from './workers/supplier-report-worker.ts';
import { startSupplierReleaseWorker } from './workers/supplier-release-worker.ts';
import { startTestDataRetention } from './workers/test-data-retention.ts';

export function createContext(runtime: ServiceRuntime, config: Config): InventoryContext {
  const catalogue = createCatalogueClient({
    baseUrl: config.CATALOGUE_URL,
    internalToken: config.INTERNAL_TOKEN ?? '',
    timeoutMs: config.CATALOGUE_TIMEOUT_MS,
    logger: runtime.logger,
  });
  return { ...runtime, config, catalogue };
}

/**
 * inventory: the eSIM routes and the ledger; in the background its outbox relay, expiry sweeper,
 * `esim.expiring` notices, supplier releases, the live life cycle from the supplier (callback inbox,
 * reconciliation), abandoned live purchases, refunds the vendor reviews, the audit of the vendor's
 * orders, the test data sweep and idempotency purge; it hears the vendors' callbacks as catalogue puts
 * their reports on the bus.
 */
export const inventoryService: ServiceDefinition<Config, InventoryContext> = {
  name: 'inventory',
  migrations,
  loadConfig,
  context: createContext,
  app: createApp,
  workers: [
    {
      name: 'outbox relay',
      start: ({ db, bus, config, logger }) => startOutboxRelay({ knex: db.knex, bus, schema: SCHEMA, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS, logger }),
    },
    {
      name: 'expiry sweeper',
      start: ({ db, config, logger }) =>
        startExpirySweeper({
          knex: db.knex,
          logger,
          intervalMs: config.SWEEPER_INTERVAL_MS,
          batchSize: config.SWEEPER_BATCH_SIZE,
          refundCheckAfterMs: config.REFUND_CHECK_AFTER_MS,
        }),
    },
    {
      name: 'expiring notifier',
      start: ({ db, config, logger }) =>
        startExpiringNotifier({ knex: db.knex, logger, intervalMs: config.EXPIRING_NOTIFIER_INTERVAL_MS, batchSize: config.SWEEPER_BATCH_SIZE }),
    },
    {
      name: 'supplier releases',
      start: ({ db, catalogue, config, logger }) =>
        startSupplierReleaseWorker({
          knex: db.knex,
          catalogue,
          logger,
          intervalMs: config.RELEASE_POLL_INTERVAL_MS,
          retryBaseMs: config.RELEASE_RETRY_BASE_MS,
          retryMaxMs: config.RELEASE_RETRY_MAX_MS,
        }),
    },
    {
      name: 'supplier reports',
      start: ({ db, config, logger }) => startSupplierReportWorker({ knex: db.knex, logger, intervalMs: config.SUPPLIER_REPORTS_POLL_INTERVAL_MS }),
    },
    {
      name: 'supplier report retention',
      start: ({ db, config, logger }) =>
        startSupplierReportRetention({
          knex: db.knex,
          logger,
          keepMs: config.SUPPLIER_REPORT_RETENTION_MS,
          intervalMs: config.SUPPLIER_REPORT_RETENTION_INTERVAL_MS,
          batchSize: 500,
        }),
    },
    {
      name: 'supplier reconciliation',
      start: ({ db, catalogue, config, logger }) =>
        startReconciliationWorker({
          knex: db.knex,
          catalogue,
          logger,
          intervalMs: config.SUPPLIER_RECONCILE_INTERVAL_MS,
          batchSize: config.SUPPLIER_RECONCILE_BATCH,
          budgetPerMinute: config.SUPPLIER_POLL_BUDGET_PER_MINUTE,
        }),
    },
    {
      name: 'purchase intents',
      start: ({ db, catalogue, config, logger }) =>
        startPurchaseIntentWorker({
          knex: db.knex,
          catalogue,
          topups: createTopupClient({
            baseUrl: config.CATALOGUE_URL,
            internalToken: config.INTERNAL_TOKEN ?? '',
            timeoutMs: config.CATALOGUE_TIMEOUT_MS,
            logger,
          }),
          logger,
          intervalMs: config.PURCHASE_INTENT_POLL_INTERVAL_MS,
          // A claimed intent outlives the supplier call it covers.
          leaseMs: Math.max(config.CATALOGUE_TIMEOUT_MS * 2, 60_000),
        }),
    },
    {
      name: 'refunds',
      start: ({ db, catalogue, config, logger }) =>
        startRefundWorker({ knex: db.knex, catalogue, logger, intervalMs: config.REFUND_POLL_INTERVAL_MS, checkEveryMs: config.REFUND_CHECK_AFTER_MS }),
    },
    {
      name: 'supplier order audit',
      start: ({ db, catalogue, config, logger }) =>
        startSupplierOrderAudit({
          knex: db.knex,
          catalogue,
          logger,
          intervalMs: config.SUPPLIER_ORDER_AUDIT_INTERVAL_MS,
          lookbackMs: config.SUPPLIER_ORDER_AUDIT_LOOKBACK_MS,
          minAgeMs: config.SUPPLIER_ORDER_AUDIT_MIN_AGE_MS,
        }),
    },
    {
      name: 'test data retention',
      start: ({ db, config, logger }) =>
        startTestDataRetention({
          knex: db.knex,
          logger,
          keepMs: config.TEST_DATA_RETENTION_MS,
          intervalMs: config.TEST_DATA_RETENTION_INTERVAL_MS,
          batchSize: config.TEST_DATA_RETENTION_BATCH,
        }),
    },
    {
      name: 'idempotency purge',
      start: ({ db, logger }) => startIdempotencyPurge({ knex: db.knex, store: idempotencyStore(`${SCHEMA}.${IDEMPOTENCY_TABLE}`), logger }),
    },
  ],
  consumers: [
    {
      name: 'supplier reports from catalogue',
      start: ({ bus, db, logger }) => startSupplierReportsConsumer({ bus, knex: db.knex, logger }),
    },
  ],
};
