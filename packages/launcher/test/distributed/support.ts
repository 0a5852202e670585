import { randomBytes } from 'node:crypto';

/** The servers the distributed tests run on; both are required (these tests exist to use them). */
export function distributedBackends(): { databaseUrl: string; natsUrl: string } {
  const databaseUrl = process.env.DATABASE_URL;
  const natsUrl = process.env.NATS_URL;
  if (!databaseUrl || !natsUrl) {
    throw new Error('The distributed tests run every service as its own process on PostgreSQL + NATS: set DATABASE_URL and NATS_URL.');
  }
  return { databaseUrl, natsUrl };
}

/**
 * Short leases and quick polls for tests that kill processes mid-load, so a retry after a
 * crash waits seconds rather than the production minute.
 */
export const QUICK_RECOVERY_ENV: NodeJS.ProcessEnv = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  // Their load runs for as long as the faults take, so its order count follows the machine's speed:
  // the day's quota of test eSIMs (record 0212, tested on its own) must not end it early.
  TEST_ESIMS_PER_DAY: '1000000',
  IDEMPOTENCY_LEASE_MS: '1500',
  DELIVERY_POLL_INTERVAL_MS: '100',
  DELIVERY_LEASE_MS: '20000',
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_RETRY_SCHEDULE_MS: '100,300,1000,2000,3000,5000',
  OUTBOX_POLL_INTERVAL_MS: '100',
};

/** An operator's call to a distributed stack's admin API; anything but a 2xx throws with the answer. */
export async function adminCall<T = Record<string, unknown>>(
  stack: { adminUrls: string[]; adminToken: string },
  method: string,
  pathname: string,
  body: unknown = {},
): Promise<T> {
  const response = await fetch(`${stack.adminUrls[0] ?? ''}${pathname}`, {
    method,
    headers: { authorization: `Bearer ${stack.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** A verified account with a live balance, made through the admin API: its id and live key. */
export async function liveAccount(
  stack: { adminUrls: string[]; adminToken: string },
  name: string,
  balanceCents: number,
): Promise<{ id: string; live: string }> {
  const created = await adminCall<{ id: string; keys: { live: { secret: string } } }>(stack, 'POST', '/admin/accounts', { name });
  await adminCall(stack, 'PATCH', `/admin/accounts/${created.id}`, { verified: true, live_balance_cents: balanceCents });
  return { id: created.id, live: created.keys.live.secret };
}

export interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code?: string; link?: string } };
  headers: Headers;
}

/** Polls `check` until it holds, or throws `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A client that retries as the SDK does: the same Idempotency-Key on every attempt, again after a
 * network error, a 5xx, a 429 or a 409 with Retry-After, until a final answer. Every answer that
 * is not 2xx is kept in `errors` (its body must be the error object).
 */
export function retryingClient(baseUrls: string[], key: string) {
  const errors: Answer[] = [];
  let networkFailures = 0;
  let turn = 0;
  async function call(method: string, path: string, idempotencyKey: string | undefined, body?: unknown, deadlineMs = 120_000): Promise<Answer> {
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0; ; attempt += 1) {
      const base = baseUrls[turn++ % baseUrls.length] ?? '';
      try {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        let parsed: Answer['body'];
        try {
          parsed = JSON.parse(text) as Answer['body'];
        } catch {
          parsed = { unparsable: text };
        }
        const answer = { status: response.status, body: parsed, headers: response.headers };
        if (response.ok) return answer;
        errors.push(answer);
        const retryable = response.status >= 500 || response.status === 429 || (response.status === 409 && response.headers.get('retry-after') !== null);
        if (!retryable || Date.now() > deadline) return answer;
      } catch {
        networkFailures += 1;
        if (Date.now() > deadline) throw new Error(`${method} ${path}: no answer before the deadline`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** Math.min(attempt, 5))));
    }
  }
  return { call, errors, networkFailures: () => networkFailures };
}

/** Subscribes a webhook receiver to every event type of the client's account and gives it the endpoint's secret. */
export async function subscribeReceiver(client: ReturnType<typeof retryingClient>, receiver: { url: string; useSecret(secret: string): void }): Promise<void> {
  const endpoint = await client.call('POST', '/v1/webhooks', `hook-${randomBytes(6).toString('hex')}`, { url: receiver.url, enabled_events: ['*'] });
  if (endpoint.status !== 201) throw new Error(`the webhook endpoint was not created: ${endpoint.status} ${JSON.stringify(endpoint.body)}`);
  receiver.useSecret(String(endpoint.body.secret));
}
