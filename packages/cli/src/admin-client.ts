import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CliConfig } from './config.ts';

export interface AdminEndpoint {
  url: string;
  token: string;
}

/** A failure to show the operator as it is (no stack trace). */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** ADMIN_URL + ADMIN_TOKEN when set, else the admin.json a running gateway wrote to DATA_DIR. */
export async function resolveEndpoint(config: CliConfig): Promise<AdminEndpoint> {
  if (config.ADMIN_URL && config.ADMIN_TOKEN) return { url: config.ADMIN_URL, token: config.ADMIN_TOKEN };
  const file = path.join(config.DATA_DIR, 'admin.json');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`No running gateway found: ${file} does not exist. Start the service (pnpm start) or set ADMIN_URL and ADMIN_TOKEN.`);
  }
  const parsed = JSON.parse(text) as Partial<AdminEndpoint>;
  if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string') throw new CliError(`${file} is not a gateway admin file.`);
  return { url: parsed.url, token: parsed.token };
}

export interface AdminClient {
  call<T = Record<string, unknown>>(method: string, pathname: string, body?: unknown): Promise<T>;
}

export function createAdminClient(endpoint: AdminEndpoint): AdminClient {
  return {
    async call<T>(method: string, pathname: string, body?: unknown): Promise<T> {
      let response: Response;
      try {
        response = await fetch(endpoint.url.replace(/\/+$/, '') + pathname, {
          method,
          headers: { authorization: `Bearer ${endpoint.token}`, 'content-type': 'application/json', accept: 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch {
        throw new CliError(`The gateway admin API at ${endpoint.url} is not reachable. Is the service running?`);
      }
      const parsed = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string; param?: string; detail?: string } };
      if (!response.ok) {
        const error = parsed.error;
        const where = error?.param ? ` (${error.param})` : '';
        const detail = error?.detail ? `: ${error.detail}` : '';
        throw new CliError(`${error?.code ?? `HTTP ${response.status}`}${where}: ${error?.message ?? 'request failed'}${detail}`);
      }
      return parsed as T;
    },
  };
}
