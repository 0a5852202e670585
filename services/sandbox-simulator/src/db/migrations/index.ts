import { idempotencyMigration, type MigrationSet } from '@connectivity/platform';
import { SCHEMA } from '../schema.ts';
import * as init from './0001_init.ts';

export const migrations: MigrationSet = {
  schema: SCHEMA,
  migrations: {
    '0001_init': init,
    // The answers of its helpers, replayed to a retry with the same Idempotency-Key (the edge
    // keeps no answers; every service that owns a mutating route keeps its own).
    '0002_idempotency': idempotencyMigration(SCHEMA),
  },
};
