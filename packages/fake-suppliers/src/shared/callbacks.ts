import type { Recorder } from './recorder.ts';

export interface CallbackSender {
  /** False: callbacks are dropped (recorded as such), so polling is the only way to learn a change. */
  enabled: boolean;
  timeoutMs: number;
}

/** POSTs one signed callback and records what happened; never throws (a vendor does not care). */
export async function sendCallback(sender: CallbackSender, recorder: Recorder, url: string, body: string, headers: Record<string, string>): Promise<void> {
  const record = { at: new Date().toISOString(), url, headers, body, outcome: 'dropped' as number | string };
  recorder.callbacks.push(record);
  if (!sender.enabled) return;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(sender.timeoutMs),
    });
    await response.arrayBuffer();
    record.outcome = response.status;
  } catch (error) {
    record.outcome = error instanceof Error ? error.message : String(error);
  }
}
