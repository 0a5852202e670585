import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build, type Plugin } from 'esbuild';
import { folderOf, ROOT } from './supervisor.ts';

/**
 * Builds one deployable for its container image (deploy/Dockerfile), from the workspace as
 * `pnpm install` left it:
 *
 *   node packages/launcher/src/bundle.ts <deployable> <out>
 *
 * The workspace's TypeScript is bundled into `<out>/main.mjs` (the program) and
 * `<out>/telemetry.mjs` (the `--import` that starts OpenTelemetry), sharing chunks, so the image
 * runs plain JavaScript (Node strips types only outside node_modules, and an image needs no
 * compiler). npm packages stay external and are loaded from `<out>/node_modules` as installed,
 * so OpenTelemetry's module hooks still patch pg, pino and undici. Only the packages the bundle
 * imports are copied there, in the version their importer was installed with, with the
 * production dependencies they declare: pnpm's layout (`.pnpm/<id>/node_modules`), so each
 * package still finds exactly its own dependencies.
 *
 * The images are for the distributed form: DATABASE_URL must be set (the embedded PGlite runs
 * from TypeScript files of its own, which are not in the bundle).
 */

/** Files workspace code reads from a package at run time without importing it, by the folder whose code does. */
const RUNTIME_FILES = [
  // The API reference page's browser script: gateway/src/routes/docs.ts resolves the package's
  // entry, then reads this file. The package's own dependencies are for browsers, not Node.
  { from: 'gateway', name: '@scalar/api-reference', files: ['package.json', 'dist/index.js', 'dist/browser/standalone.js'] },
];

const TELEMETRY_ENTRY = path.join(ROOT, 'packages/platform/src/telemetry/register.mjs');

/** The program of each image: a service's main, or the migrations for the launcher. */
function programOf(deployable: string): string {
  if (deployable === 'launcher') return path.join(ROOT, 'packages/launcher/src/migrate.ts');
  const main = path.join(ROOT, folderOf(deployable), 'src/main.ts');
  if (!existsSync(main)) throw new Error(`bundle: no deployable ${deployable} (${main} does not exist)`);
  return main;
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** Workspace packages are bundled; every other bare import is left to node_modules. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('@connectivity/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

interface PackageJson {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
}

/** The real folder Node would load package `name` from, looking up from `fromDir`. */
function resolvePackage(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dir === path.dirname(dir)) return undefined;
  }
}

/** A package's place in pnpm's virtual store: `.pnpm/<id>/node_modules/<name>`. */
function storeEntry(packageDir: string): { store: string; id: string } {
  const match = /^(.*[\\/]node_modules[\\/]\.pnpm)[\\/]([^\\/]+)[\\/]node_modules[\\/]/.exec(packageDir);
  if (!match?.[1] || !match[2]) throw new Error(`bundle: ${packageDir} is not in a pnpm virtual store`);
  return { store: match[1], id: match[2] };
}

/** The package folders `roots` need, with the production dependencies each declares, transitively. */
function dependencyClosure(roots: Iterable<string>): Set<string> {
  const found = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const dir = queue.pop() as string;
    if (found.has(dir)) continue;
    found.add(dir);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const dep = resolvePackage(name, dir);
      if (!dep) throw new Error(`bundle: ${dir} needs ${name}, which is not installed`);
      queue.push(dep);
    }
    // Optional dependencies (another platform's binary) and peers (knex's database drivers,
    // loaded with require) are kept when installed, never required.
    for (const name of Object.keys({ ...manifest.optionalDependencies, ...manifest.peerDependencies, ...manifest.peerDependenciesMeta })) {
      const dep = resolvePackage(name, dir);
      if (dep) queue.push(dep);
    }
  }
  return found;
}

/** What a package ships that nothing loads at run time: types, TypeScript sources, source maps, docs. */
const NOT_RUN = /\.(?:[cm]?ts|map|md|markdown)$/i;

export async function bundle(deployable: string, outDir: string): Promise<{ packages: number }> {
  rmSync(outDir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { main: programOf(deployable), telemetry: TELEMETRY_ENTRY },
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    plugins: [externalPackages],
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
    absWorkingDir: ROOT,
  });

  // Each package the bundle imports, resolved from the file that imports it.
  const imported = new Map<string, string>();
  for (const [input, { imports }] of Object.entries(result.metafile.inputs)) {
    for (const entry of imports) {
      if (!entry.external || isBuiltin(entry.path)) continue;
      const name = packageName(entry.path);
      const dir = resolvePackage(name, path.dirname(path.join(ROOT, input)));
      if (!dir) throw new Error(`bundle: ${input} imports ${name}, which is not installed`);
      const other = imported.get(name);
      if (other && other !== dir) throw new Error(`bundle: two versions of ${name} are imported (${other}, ${dir}); one node_modules can hold one`);
      imported.set(name, dir);
    }
  }

  const modules = path.join(outDir, 'node_modules');
  const packages = dependencyClosure(imported.values());
  // Each package's folder in the store, with the links to its own dependencies beside it.
  const storeOf = new Map([...packages].map((dir) => storeEntry(dir)).map(({ store, id }) => [id, store]));
  for (const [id, store] of storeOf) {
    cpSync(path.join(store, id), path.join(modules, '.pnpm', id), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (source) => !(NOT_RUN.test(source) && lstatSync(source).isFile()),
    });
  }
  for (const [name, dir] of imported) {
    const { id } = storeEntry(dir);
    const link = path.join(modules, name);
    mkdirSync(path.dirname(link), { recursive: true });
    symlinkSync(path.relative(path.dirname(link), path.join(modules, '.pnpm', id, 'node_modules', name)), link);
  }
  const inputs = Object.keys(result.metafile.inputs);
  for (const { from, name, files } of RUNTIME_FILES) {
    if (!inputs.some((input) => input.startsWith(`${from}/`)) || imported.has(name)) continue;
    const dir = resolvePackage(name, path.join(ROOT, from));
    if (!dir) throw new Error(`bundle: ${from} reads files of ${name}, which is not installed`);
    for (const file of files) {
      const target = path.join(modules, name, file);
      mkdirSync(path.dirname(target), { recursive: true });
      cpSync(path.join(dir, file), target);
    }
  }
  return { packages: packages.size };
}

if (import.meta.main) {
  const [deployable, outDir] = process.argv.slice(2);
  if (!deployable || !outDir) {
    process.stderr.write('usage: node packages/launcher/src/bundle.ts <deployable> <out dir>\n');
    process.exit(2);
  }
  const { packages } = await bundle(deployable, path.resolve(outDir));
  process.stdout.write(`bundled ${deployable} into ${outDir} with ${packages} packages\n`);
}
