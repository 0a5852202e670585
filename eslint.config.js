// One rule set for the whole monorepo: typescript-eslint's type-aware recommended rules, and
// the import boundaries of CONTRIBUTING.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const SERVICES = ['catalogue', 'inventory', 'notifications', 'sandbox-simulator', 'gateway'];
const servicePackages = SERVICES.map((name) => `@connectivity/${name}`);

/**
 * `no-restricted-imports` with these patterns, each with the reason it is refused. node:net's
 * address helpers are pure; its sockets are I/O.
 */
const refuse = (...groups) => ['error', { patterns: groups.map(([group, message]) => ({ group, message })) }];
const NET_SOCKETS = {
  name: 'node:net',
  allowImportNames: ['isIP', 'isIPv4', 'isIPv6', 'BlockList', 'SocketAddress'],
  message: 'domain/ does no I/O: node:net only for its address helpers.',
};
const refuseInDomain = (...groups) => ['error', { paths: [NET_SOCKETS], patterns: groups.map(([group, message]) => ({ group, message })) }];

// What domain code may not reach: persistence, HTTP, other layers, I/O.
const DOMAIN_IS_PURE = [
  ['**/db/**', '**/routes/**', '**/clients/**', '**/workers/**', '**/consumers/**', '**/use-cases/**', '**/edge/**', '**/app.ts', '**/service.ts'],
  'domain/ is pure rules and presenters: it imports no db/, routes/, clients/, workers/, consumers/, use-cases/ or edge/ (CONTRIBUTING.md).',
];
const DOMAIN_HAS_NO_IO = [
  [
    'knex',
    'pg',
    'express',
    'undici',
    'ioredis',
    '@nats-io/*',
    'node:http',
    'node:https',
    'node:dns',
    'node:dns/*',
    'node:fs',
    'node:fs/*',
    'node:child_process',
  ],
  'domain/ does no I/O: no database, HTTP, bus, file or process modules (CONTRIBUTING.md).',
];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.data/**', '**/*.mjs', '**/*.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      'no-console': 'error',
      eqeqeq: ['error', 'smart'],
    },
  },
  // Import boundaries (CONTRIBUTING.md): domain code is pure; services never import each other;
  // the shared packages never import a service, the launcher or the CLI.
  ...SERVICES.map((name) => ({
    files: [name === 'gateway' ? 'gateway/src/**/*.ts' : `services/${name}/src/**/*.ts`],
    ignores: [name === 'gateway' ? 'gateway/src/domain/**' : `services/${name}/src/domain/**`],
    rules: {
      'no-restricted-imports': refuse([
        [...servicePackages.filter((pkg) => pkg !== `@connectivity/${name}`), '@connectivity/launcher', '@connectivity/cli', '**/services/**', '**/gateway/**'],
        'A service never imports another service (nor the launcher or the CLI): call it through its internal contract.',
      ]),
    },
  })),
  ...SERVICES.map((name) => ({
    files: [name === 'gateway' ? 'gateway/src/domain/**/*.ts' : `services/${name}/src/domain/**/*.ts`],
    rules: {
      'no-restricted-imports': refuseInDomain(DOMAIN_IS_PURE, DOMAIN_HAS_NO_IO, [
        [...servicePackages.filter((pkg) => pkg !== `@connectivity/${name}`), '@connectivity/launcher', '@connectivity/cli', '**/services/**', '**/gateway/**'],
        'A service never imports another service (nor the launcher or the CLI): call it through its internal contract.',
      ]),
    },
  })),
  {
    files: ['packages/contracts/**/*.ts', 'packages/platform/**/*.ts', 'packages/sdk/**/*.ts'],
    ignores: ['**/test/**', '**/bench/**'],
    rules: {
      'no-restricted-imports': refuse([
        [...servicePackages, '@connectivity/launcher', '@connectivity/cli', '**/services/**', '**/gateway/**', '**/launcher/**', '**/cli/**'],
        'contracts, platform and sdk are shared by everyone: they never import a service, the launcher or the CLI.',
      ]),
    },
  },
  {
    files: ['**/test/**', '**/*.test.ts', 'packages/cli/**', 'packages/launcher/src/smoke.ts', '**/bench/**'],
    rules: { 'no-console': 'off', '@typescript-eslint/no-unsafe-assignment': 'off', '@typescript-eslint/no-unsafe-member-access': 'off' },
  },
);
