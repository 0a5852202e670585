import { WEBHOOK_HEADERS } from '@connectivity/contracts';
import { Webhook } from 'standardwebhooks';

/** How a local delivery went: the receiver's status, or why there was none. */
export type LocalOutcome = { status: number } | { error: string };

/**
 * POSTs one event to the local receiver exactly as a webhook delivery comes: the event object as
 * the body, and the Standard Webhooks headers signed with the run's secret (a fresh timestamp).
 * Not retried: the receiver is on this machine, and the line printed shows what it answered.
 */
export async function forwardEvent(url: string, secret: string, eventId: string, body: string, timeoutMs: number): Promise<LocalOutcome> {
  const at = new Date();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'connectivity-cli-listen',
        [WEBHOOK_HEADERS.id]: eventId,
        [WEBHOOK_HEADERS.timestamp]: String(Math.floor(at.getTime() / 1000)),
        [WEBHOOK_HEADERS.signature]: new Webhook(secret).sign(eventId, at, body),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { error: cause ?? (error instanceof Error ? error.name : String(error)) };
  }
}
