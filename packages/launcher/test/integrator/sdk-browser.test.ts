import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureDevAccount } from '@connectivity/gateway';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../../src/local-stack.ts';
import { launchChromium, type Chromium } from './support/chromium.ts';
import { installConsumer } from './support/consumer-project.ts';
import { expectPortableReport } from './support/portable-report.ts';

/** A delivery as the page reads it back: the exact bytes (base64) and the headers. */
interface Received {
  headers: Record<string, string>;
  body: string;
}

/** Records each webhook delivery as it arrived, for the page to read (a page cannot be a webhook endpoint). */
async function startReceiver(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])));
      received.push({ headers, body: Buffer.concat(chunks).toString('base64') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/**
 * The packed SDK in a browser: the portable program bundled by esbuild for the browser from the
 * installed package, run in Debian's Chromium against a started API (record 0187). The page is served
 * under the API's origin by Playwright, so its calls go to the API unchanged and no CORS is involved.
 */
describe('the packed SDK bundled with esbuild, in Chromium', () => {
  let stack: LocalStack;
  let testKey = '';
  let scratch = '';
  let chromium: Chromium | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let bundle = '';
  let metafile: Metafile;

  beforeAll(async () => {
    stack = await startLocalStack({ DELIVERY_POLL_INTERVAL_MS: '50' });
    testKey = (await ensureDevAccount({ db: stack.db })).testKey;
    scratch = await mkdtemp(path.join(tmpdir(), 'sdk-browser-'));
    const project = path.join(scratch, 'consumer');
    await installConsumer(project, inject('sdkTarball'), [], ['portable.ts', 'browser-main.ts']);
    const result = await build({
      entryPoints: ['browser-main.ts'],
      absWorkingDir: project,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    bundle = result.outputFiles[0]?.text ?? '';
    metafile = result.metafile;
    receiver = await startReceiver();
    chromium = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await chromium?.close();
    await new Promise((resolve) => (receiver ? receiver.server.close(resolve) : resolve(undefined)));
    await stack?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  test('esbuild bundles the installed package’s ES module for the browser, with no Node built-in', () => {
    const inputs = Object.keys(metafile.inputs);
    expect(inputs).toContain('node_modules/@connectivity/sdk/dist/index.js');
    // platform 'browser' fails the build on an unresolvable node: import; a polyfilled one would show here.
    expect(inputs.filter((input) => /^node:|(^|\/)(buffer|process|util|events|stream)(\/|$)/.test(input))).toEqual([]);
    expect(bundle).not.toMatch(/\brequire\(["']node:|\bBuffer\.from\(/);
  });

  test('runs in Chromium against the started API: lists, buys, pages, typed errors, verifies real deliveries, ignores an unknown type', async () => {
    const origin = new URL(stack.composition.gatewayUrl).origin;
    const root = `${origin}/__sdk-browser-test/`;
    const files: Record<string, { contentType: string; body: () => string }> = {
      'index.html': { contentType: 'text/html', body: () => '<!doctype html><title>SDK</title><script type="module" src="consumer.js"></script>' },
      'consumer.js': { contentType: 'text/javascript', body: () => bundle },
      deliveries: { contentType: 'application/json', body: () => JSON.stringify(receiver?.received ?? []) },
    };
    if (!chromium) throw new Error('Chromium did not start');
    const page = await chromium.browser.newPage();
    // Only the page's own files are answered here; every other request reaches the API as the page made it.
    await page.route(`${root}**`, (route) => {
      const file = files[new URL(route.request().url()).pathname.slice(new URL(root).pathname.length)];
      return file ? route.fulfill({ status: 200, contentType: file.contentType, body: file.body() }) : route.fulfill({ status: 404 });
    });
    const requests: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${root}index.html`);
    await page.waitForFunction(() => typeof (globalThis as { runConsumer?: unknown }).runConsumer === 'function', undefined, { timeout: 30_000 });

    const options = { apiKey: testKey, runId: 'runbrowser', inboxUrl: `${receiver?.url ?? ''}/hooks/browser`, deliveriesUrl: `${root}deliveries` };
    const report = await page.evaluate(
      (given) => (globalThis as unknown as { runConsumer(options: typeof given): Promise<Record<string, unknown>> }).runConsumer(given),
      options,
    );
    await page.close();

    expectPortableReport(report);
    expect(errors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(`${origin}/v1/`) && !url.startsWith(root))).toEqual([]);
    expect(requests.filter((url) => url.startsWith(`${origin}/v1/esim`)).length).toBeGreaterThanOrEqual(4);
  }, 120_000);
});
