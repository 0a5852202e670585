import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

/**
 * The files here that use neither the configured database nor the bus: they start `pnpm start` on
 * its own embedded pair, a nats-server of their own, or read the repository's files. CI runs this
 * suite once per backend; on the second it sets TEST_SECOND_BACKEND=1, and these, which would run
 * exactly the same again, are left out (as the packages that use no backend at all are).
 */
const BACKEND_INDEPENDENT = [
  'test/embedded.test.ts',
  'test/early-database.test.ts',
  'test/bus-users.test.ts',
  'test/bench-load.test.ts',
  'test/configuration-reference.test.ts',
  'test/deploy-config.test.ts',
  'test/deploy-credentials.test.ts',
  'test/house-rules.test.ts',
  'test/kubernetes.test.ts',
  'test/ports.test.ts',
];

// Each file here starts the whole system (one of them as a child process): one file at a time,
// so a file never waits on another's start-up on a two-core machine. The tests of the
// distributed form (one process per service, PostgreSQL + NATS) run apart: `pnpm test:distributed`, and
// so do the checks of what an integrator installs and reads: `pnpm test:integrator`, and those of
// the container images, in deploy/ci-containers.sh.
export default mergeConfig(
  shared,
  defineConfig({
    test: {
      maxWorkers: 1,
      exclude: [
        'test/distributed/**',
        'test/integrator/**',
        'test/containers/**',
        'node_modules/**',
        ...(process.env.TEST_SECOND_BACKEND === '1' ? BACKEND_INDEPENDENT : []),
      ],
    },
  }),
);
