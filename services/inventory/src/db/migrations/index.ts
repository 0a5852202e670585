import { idempotencyMigration, outboxMigration, type MigrationSet } from '@connectivity/platform';
import * as accounts from './0002_accounts.ts';
import * as ordersAndEsims from './0003_orders_and_esims.ts';
import * as supplierReleases from './0004_supplier_releases.ts';
import * as supplierTerminations from './0005_supplier_terminations.ts';
import * as metadata from './0007_metadata.ts';
import * as testClocks from './0008_test_clocks.ts';
import * as expiredReason from './0009_expired_reason.ts';
import * as supplierLifecycle from './0010_supplier_lifecycle.ts';
import * as supplierReportTraces from './0011_supplier_report_traces.ts';
import * as ledger from './0012_ledger.ts';
import * as testDataQuotas from './0013_test_data_quotas.ts';
import * as validityStart from './0014_validity_start.ts';
import * as topups from './0015_topups.ts';
import * as topupIntents from './0016_topup_intents.ts';
import * as expiringNotices from './0017_expiring_notices.ts';
import * as topupIntentOffers from './0018_topup_intent_offers.ts';
import { SCHEMA } from '../schema.ts';

export const migrations: MigrationSet = {
  schema: SCHEMA,
  migrations: {
    '0001_outbox': outboxMigration(SCHEMA),
    '0002_accounts': accounts,
    '0003_orders_and_esims': ordersAndEsims,
    '0004_supplier_releases': supplierReleases,
    '0005_supplier_terminations': supplierTerminations,
    '0006_idempotency': idempotencyMigration(SCHEMA),
    '0007_metadata': metadata,
    '0008_test_clocks': testClocks,
    '0009_expired_reason': expiredReason,
    '0010_supplier_lifecycle': supplierLifecycle,
    '0011_supplier_report_traces': supplierReportTraces,
    '0012_ledger': ledger,
    '0013_test_data_quotas': testDataQuotas,
    '0014_validity_start': validityStart,
    '0015_topups': topups,
    '0016_topup_intents': topupIntents,
    '0017_expiring_notices': expiringNotices,
    '0018_topup_intent_offers': topupIntentOffers,
  },
};
