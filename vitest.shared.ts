import { defineConfig } from 'vitest/config';

// Integration tests start real databases (PostgreSQL or PGlite) and buses; give them time,
// and keep files in separate processes so one file's PGlite never shares memory with another's.
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
  },
});
