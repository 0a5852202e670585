import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { quantile } from './load.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

export const idempotencyKey = () => ({ 'idempotency-key': randomBytes(12).toString('hex') });

/** Subscribes the receiver to `esim.released` on the API at `url`, as an integrator's suite does first. */
export async function subscribe(url: string, auth: Record<string, string>, receiver: WebhookReceiver): Promise<void> {
  const created = await fetch(`${url}/v1/webhooks`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', ...idempotencyKey() },
    body: JSON.stringify({ url: receiver.url, enabled_events: ['esim.released'] }),
  });
  const endpoint = (await created.json()) as { secret?: string };
  if (created.status !== 201 || !endpoint.secret) throw new Error(`POST /v1/webhooks answered ${created.status}`);
  receiver.useSecret(endpoint.secret);
}

export interface WebhookLatency {
  p50: number;
  p99: number;
  matched: number;
  missing: number;
  failed: number;
  early: number;
  rejected: number;
  /** As a row's text. */
  text: string;
  met: boolean;
}

/**
 * `count` orders, `atOnce` at a time (each worker sends its next order as soon as it has its
 * 201), and for each the time from its 201 to its verified `esim.released` webhook. Whatever the
 * load before left queued (the events of a burst) is in front of these: that is the point.
 */
export async function orderToWebhook(options: {
  url: string;
  headers: Record<string, string>;
  body: string;
  receiver: WebhookReceiver;
  count: number;
  atOnce: number;
  timeoutMs: number;
}): Promise<WebhookLatency> {
  const placed: { esimId: string; at: number }[] = [];
  let failed = 0;
  let next = 0;
  const order = async () => {
    const response = await fetch(`${options.url}/v1/esim`, { method: 'POST', headers: { ...options.headers, ...idempotencyKey() }, body: options.body });
    const at = performance.now();
    const body = (await response.json()) as { esims?: { id: string }[] };
    const esimId = body.esims?.[0]?.id;
    if (response.status === 201 && esimId) placed.push({ esimId, at });
    else failed += 1;
  };
  const worker = async () => {
    while (next < options.count) {
      next += 1;
      await order().catch(() => {
        failed += 1;
      });
    }
  };
  await Promise.all(Array.from({ length: options.atOnce }, worker));
  await Promise.all(placed.map((entry) => options.receiver.waitFor(entry.esimId, options.timeoutMs)));
  const delays = placed
    .filter((entry) => options.receiver.released.has(entry.esimId))
    .map((entry) => (options.receiver.released.get(entry.esimId) ?? 0) - entry.at)
    .sort((a, b) => a - b);
  const missing = placed.length - delays.length;
  const p50 = quantile(delays, 0.5);
  const p99 = quantile(delays, 0.99);
  const early = delays.filter((delay) => delay < 0).length;
  const text =
    `p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms (${delays.length} matched` +
    `${early ? `, ${early} before their 201` : ''}${missing ? `, ${missing} never arrived` : ''}${failed ? `, ${failed} orders failed` : ''}; rejected signatures ${options.receiver.rejected})`;
  return {
    p50,
    p99,
    matched: delays.length,
    missing,
    failed,
    early,
    rejected: options.receiver.rejected,
    text,
    met: delays.length > 0 && missing === 0 && failed === 0 && p50 < 50 && p99 < 250,
  };
}
