import { readFile } from 'node:fs/promises';
import * as main from '@connectivity/sdk';
import * as express from '@connectivity/sdk/express';
import { describe, expect, test } from 'vitest';
import config from '../tsdown.config.ts';

const manifest = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, Record<string, string>>;
  publishConfig: { exports: Record<string, { import: Record<string, string>; require: Record<string, string> }> };
};

describe('the express subpath (@connectivity/sdk/express)', () => {
  test('holds the Node-only middleware, which the main entry no longer exports', () => {
    expect(Object.keys(express).sort()).toEqual(['WebhookBodyParsedError', 'webhookMiddleware']);
    expect(main).not.toHaveProperty('webhookMiddleware');
    expect(main).not.toHaveProperty('WebhookBodyParsedError');
    expect(typeof main.verifyWebhook).toBe('function');
  });

  test('is exported by name in the workspace and in the published package, from the files the build makes', () => {
    expect(manifest.exports['./express']).toEqual({ types: './src/express.ts', import: './src/express.ts', default: './src/express.ts' });
    expect(manifest.publishConfig.exports['./express']).toEqual({
      import: { types: './dist/express.d.ts', default: './dist/express.js' },
      require: { types: './dist/express.d.cts', default: './dist/express.cjs' },
    });
    // Every published entry is one the build has (dist/<entry>.js, .cjs and .d.ts, copied to .d.cts).
    const builds = Array.isArray(config) ? config : [config];
    const entries = builds
      .flatMap((build) => (Array.isArray(build.entry) ? build.entry : []))
      .map((entry) => (typeof entry === 'string' ? /^src\/(.+)\.ts$/.exec(entry)?.[1] : entry));
    expect(new Set(entries)).toEqual(new Set(['index', 'express']));
  });
});
