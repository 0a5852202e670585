import { defineConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// What an integrator gets, checked with outside tools: the packed SDK installed by npm and run on
// Node 20 and 24, Bun and Deno, bundled by esbuild into a page in Chromium, and typed without Node's
// types; and the API reference in a real browser. Run once per CI run (`pnpm test:integrator`), not per
// backend: what they check does not depend on the database or the bus. The SDK is packed once, for
// every file (globalSetup). (Spread, not merged: mergeConfig would append these files to the shared
// `include` instead of replacing it.)
export default defineConfig({
  ...shared,
  test: {
    ...shared.test,
    include: ['test/integrator/**/*.test.ts'],
    globalSetup: ['test/integrator/support/pack-sdk.ts'],
    maxWorkers: 1,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
