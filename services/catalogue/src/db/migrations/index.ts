import type { MigrationSet } from '@connectivity/platform';
import * as bundles from './0001_bundles.ts';
import * as seed from './0002_seed_sandbox_bundles.ts';
import * as liveOrdering from './0003_live_ordering.ts';
import * as validityStart from './0004_validity_start.ts';
import { SCHEMA } from '../schema.ts';

export { SCHEMA };

export const migrations: MigrationSet = {
  schema: SCHEMA,
  migrations: { '0001_bundles': bundles, '0002_seed_sandbox_bundles': seed, '0003_live_ordering': liveOrdering, '0004_validity_start': validityStart },
};
