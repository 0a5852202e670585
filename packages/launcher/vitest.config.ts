import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// Each file here starts the whole system (one of them as a child process): one file at a time,
// so a file never waits on another's start-up on a two-core machine. The tests of the
// distributed form (one process per service, PostgreSQL + NATS) run apart: `pnpm test:distributed`, and
// so do the checks of what an integrator installs and reads: `pnpm test:integrator`, and those of
// the container images, in deploy/ci-containers.sh.
export default mergeConfig(
  shared,
  defineConfig({ test: { maxWorkers: 1, exclude: ['test/distributed/**', 'test/integrator/**', 'test/containers/**', 'node_modules/**'] } }),
);
