import { idempotencyMigration, outboxMigration, type MigrationSet } from '@connectivity/platform';
import { SCHEMA } from '../schema.ts';
import * as accountsAndKeys from './0001_accounts_and_keys.ts';
import * as rateLimits from './0003_rate_limits.ts';
import * as requestLogs from './0005_request_logs.ts';
import * as idempotencyForwarded from './0006_idempotency_forwarded.ts';
import * as throwawayKeys from './0007_throwaway_keys.ts';
import * as balanceScope from './0008_balance_scope.ts';
import * as idempotencyPerAccount from './0009_idempotency_per_account.ts';

export const migrations: MigrationSet = {
  schema: SCHEMA,
  migrations: {
    '0001_accounts_and_keys': accountsAndKeys,
    '0002_idempotency': idempotencyMigration(SCHEMA),
    '0003_rate_limits': rateLimits,
    '0004_outbox': outboxMigration(SCHEMA),
    '0005_request_logs': requestLogs,
    '0006_idempotency_forwarded': idempotencyForwarded,
    '0007_throwaway_keys': throwawayKeys,
    '0008_balance_scope': balanceScope,
    '0009_idempotency_per_account': idempotencyPerAccount,
  },
};
