import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page, type Request } from 'playwright-core';

// Debian's Chromium (.ci/run installs it); a fresh profile and no background traffic of its own, so
// every request recorded is one the page made.
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  browser: BrowserContext;
  close(): Promise<void>;
}

/** Chromium on a fresh profile folder, removed when it closes. */
export async function launchChromium(): Promise<Chromium> {
  const profile = await mkdtemp(path.join(tmpdir(), 'chromium-profile-'));
  // A persistent context is how Playwright takes a profile folder (`--user-data-dir`).
  const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: FLAGS });
  return {
    browser,
    async close() {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Resolves once no request of the page has started or ended for `quietMs`, counted from the page's own
 * request events: what `waitForLoadState('networkidle')` is for, which hung after in-page navigation with
 * nothing in flight (record 0189).
 */
export async function waitForQuiet(page: Page, quietMs = 500, timeoutMs = 30_000): Promise<void> {
  const inflight = new Set<Request>();
  let lastChange = Date.now();
  const started = (request: Request) => {
    inflight.add(request);
    lastChange = Date.now();
  };
  const ended = (request: Request) => {
    inflight.delete(request);
    lastChange = Date.now();
  };
  page.on('request', started);
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  try {
    const deadline = Date.now() + timeoutMs;
    while (inflight.size > 0 || Date.now() - lastChange < quietMs) {
      if (Date.now() > deadline) throw new Error(`Requests still in flight after ${timeoutMs} ms: ${[...inflight].map((request) => request.url()).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    page.off('request', started);
    page.off('requestfinished', ended);
    page.off('requestfailed', ended);
  }
}
