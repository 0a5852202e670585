import { EVENT_TYPES } from '@connectivity/contracts';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startLocalStack, type LocalStack } from '../../src/local-stack.ts';
import { launchChromium, waitForQuiet, type Chromium } from './support/chromium.ts';

/** Opens `url` and records every request the page makes until the network has been idle. */
async function visit(browser: BrowserContext, url: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage();
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(url, { waitUntil: 'networkidle', timeout: 60_000 });
  return { page, requests };
}

/** The origins of recorded requests other than `origin`; `data:` and `blob:` URLs are made in the page and go nowhere. */
const foreign = (requests: string[], origin: string) =>
  requests.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin);

/**
 * The reference as a person reads it, in a real browser: `/docs` renders the API from openapi.json
 * with nothing loaded from another origin and none of the vendor's hosted-product buttons, and an
 * error's link opens that code's page.
 */
describe('the API reference in Chromium', () => {
  let stack: LocalStack;
  let chromium: Chromium | undefined;
  let browser: BrowserContext;
  let origin = '';

  beforeAll(async () => {
    stack = await startLocalStack();
    origin = new URL(stack.composition.gatewayUrl).origin;
    chromium = await launchChromium();
    browser = chromium.browser;
  }, 120_000);

  afterAll(async () => {
    await chromium?.close();
    await stack?.close();
  });

  test('/docs renders every operation and webhook from the API’s own origin only, without hosted-product buttons', async () => {
    const { page, requests } = await visit(browser, `${origin}/docs`);
    await page.getByRole('heading', { name: 'Connectivity Service API' }).first().waitFor({ timeout: 30_000 });
    // Groups open from the sidebar, as a reader opens them; each loads what it shows.
    const open = async (group: string, shown: string[]) => {
      await page.getByText(group, { exact: true }).first().click();
      for (const text of shown) await page.getByText(text, { exact: true }).first().waitFor({ timeout: 30_000 });
    };
    await open('Introduction', ['Verifying webhook signatures', 'Error codes']);
    await open('eSIMs', ['Buy eSIMs', 'Get an eSIM’s install QR code']);
    await open('Webhook events', [...EVENT_TYPES]);
    // Let lazy chunks, fonts and images of the rendered page come in before judging where they came from.
    await waitForQuiet(page);

    expect(requests).toContain(`${origin}/v1/openapi.json`);
    expect(foreign(requests, origin)).toEqual([]);
    const text = await page.locator('body').innerText();
    for (const label of ['Ask AI', 'Generate MCP', 'Deploy']) expect(text, label).not.toContain(label);
    await page.close();
  }, 120_000);

  test('an error’s link opens that code’s page, from the API’s own origin only', async () => {
    const { page, requests } = await visit(browser, `${origin}/v1/errors/idempotency_key_required`);
    expect(await page.locator('h1').innerText()).toBe('idempotency_key_required');
    expect(await page.title()).toContain('idempotency_key_required');
    expect(await page.locator('body').innerText()).toContain('HTTP 400');
    expect(foreign(requests, origin)).toEqual([]);
    await page.close();
  }, 60_000);
});
