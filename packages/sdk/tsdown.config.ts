import { copyFile } from 'node:fs/promises';
import { defineConfig, type UserConfig } from 'tsdown';

// The published build: an ES module and a CommonJS one, with their declarations, for the main entry and
// the `express` subpath. The public contract is bundled in (it is not published on its own); zod, ts-rest
// and standardwebhooks stay dependencies.
const ENTRIES = ['index', 'express'];

const shared: UserConfig = {
  entry: ENTRIES.map((name) => `src/${name}.ts`),
  // Neutral: nothing Node-specific is added, so the main entry runs wherever fetch does.
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
  outDir: 'dist',
  // Fails the build if anything from node_modules would be bundled: dependencies stay dependencies. The
  // subpath imports the main entry by the package's name, so it is one module at run time (record 0185).
  deps: { onlyBundle: [], neverBundle: ['@connectivity/sdk'] },
};

export default defineConfig([
  // `eager`: the contract's sources are outside this package, and their declarations are bundled too.
  {
    ...shared,
    format: 'esm',
    clean: true,
    dts: { tsc: { eager: true } },
    // The declarations are the same for both formats, and bundling them is most of the build's time: done once.
    hooks: { 'build:done': () => Promise.all(ENTRIES.map((name) => copyFile(`dist/${name}.d.ts`, `dist/${name}.d.cts`))).then(() => undefined) },
  },
  { ...shared, format: 'cjs', clean: false, dts: false },
]);
