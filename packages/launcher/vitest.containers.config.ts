import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// The compose stack built from the container images, as deploy/ci-containers.sh starts it (that
// script runs these and says where the stack is). (Spread, not merged: mergeConfig would append
// these files to the shared `include` instead of replacing it.)
export default defineConfig({
  ...shared,
  test: { ...shared.test, include: ['test/containers/**/*.test.ts'], maxWorkers: 1, testTimeout: 300_000, hookTimeout: 60_000 },
});
