import { expect } from 'vitest';
import type { AiraloFake } from '../src/index.ts';

export interface Listed<T> {
  data: T[];
  meta: Record<string, unknown>;
}
export interface One<T> {
  data: T;
}

export interface OrderBody {
  id: number;
  code: string;
  description: string;
  sims: { iccid: string; lpa: string; matching_id: string; qrcode: string; direct_apple_installation_url: string }[];
}

export interface CallOptions {
  method?: string;
  token?: string;
  json?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/** A test's HTTP client of the Airalo fake the test has now (`fake()` is read at each call). */
export function airaloClient(fake: () => AiraloFake) {
  async function token(): Promise<string> {
    const { url, credentials } = fake();
    const response = await fetch(`${url}/token`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret, grant_type: 'client_credentials' }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: { access_token: string } }).data.access_token;
  }

  async function call<T = unknown>(path: string, init: CallOptions = {}) {
    const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    let body: string | FormData | undefined;
    if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    } else if (init.form) body = init.form;
    const response = await fetch(`${fake().url}${path}`, { method: init.method ?? 'GET', headers, body, signal: init.signal });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as T };
  }

  /** POST /v2/orders as the document's multipart form; fails the test unless it is a 200. */
  async function order(accessToken: string, packageId: string, quantity: number, description?: string) {
    const form = new FormData();
    form.set('package_id', packageId);
    form.set('quantity', String(quantity));
    if (description) form.set('description', description);
    const response = await call<One<OrderBody>>('/orders', { method: 'POST', token: accessToken, form });
    expect(response.status).toBe(200);
    return response.body.data;
  }

  /** GET /v2/balance's available amount (USD). */
  async function balance(accessToken: string): Promise<number> {
    const response = await call<One<{ balances: { availableBalance: { amount: number } } }>>('/balance', { token: accessToken });
    return response.body.data.balances.availableBalance.amount;
  }

  return { token, call, order, balance };
}
