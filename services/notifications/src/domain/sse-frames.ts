import type { ApiEvent as Event } from '@connectivity/contracts';

/**
 * One event as a Server-Sent Events message: `id:` the event id (what a client sends back as
 * Last-Event-ID), `event:` its type, `data:` the event object on one line (JSON has no raw newlines).
 */
export function eventFrame(event: Event): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** A comment line: ignored by clients, it keeps proxies and load balancers from closing an idle stream. */
export const KEEPALIVE_FRAME = ': keepalive\n\n';

/** Sent first: how long a client waits before reconnecting (EventSource honours it). */
export const retryFrame = (ms: number): string => `retry: ${ms}\n\n`;
