import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The distributed form: every service its own process on PostgreSQL + NATS JetStream (both must
// be configured: DATABASE_URL and NATS_URL). One file at a time; each starts its own stack.
export default mergeConfig(
  shared,
  defineConfig({ test: { include: ['test/distributed/**/*.test.ts'], maxWorkers: 1, testTimeout: 300_000, hookTimeout: 180_000 } }),
);
