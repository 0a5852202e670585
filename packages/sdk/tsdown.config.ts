import { copyFile } from 'node:fs/promises';
import { defineConfig, type UserConfig } from 'tsdown';

// The published build: an ES module and a CommonJS one, with their declarations. The public contract is
// bundled in (it is not published on its own); zod, ts-rest and standardwebhooks stay dependencies.
const shared: UserConfig = {
  entry: ['src/index.ts'],
  // Neutral: nothing Node-specific is added, so the client runs wherever fetch does.
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
  outDir: 'dist',
  // Fails the build if anything from node_modules would be bundled: dependencies stay dependencies.
  deps: { onlyBundle: [] },
};

export default defineConfig([
  // `eager`: the contract's sources are outside this package, and their declarations are bundled too.
  {
    ...shared,
    format: 'esm',
    clean: true,
    dts: { tsc: { eager: true } },
    // The declarations are the same for both formats, and bundling them is most of the build's time: done once.
    hooks: { 'build:done': () => copyFile('dist/index.d.ts', 'dist/index.d.cts') },
  },
  { ...shared, format: 'cjs', clean: false, dts: false },
]);
