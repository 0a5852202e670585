import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The distributed form: every service its own process on PostgreSQL + NATS JetStream (both must
// be configured: DATABASE_URL and NATS_URL). One file at a time; each starts its own stack.
// (Spread, not merged: mergeConfig would append these files to the shared `include`, and run every test.)
export default defineConfig({
  ...shared,
  test: { ...shared.test, include: ['test/distributed/**/*.test.ts'], maxWorkers: 1, testTimeout: 300_000, hookTimeout: 180_000 },
});
