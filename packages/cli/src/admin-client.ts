import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { adminContract } from '@connectivity/contracts';
import { initClient, tsRestFetchApi } from '@ts-rest/core';
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
    throw new CliError(
      `No running gateway found: ${file} does not exist. Start the service (pnpm start) or set ADMIN_URL and ADMIN_TOKEN; ` +
        'a gateway started with another DATA_DIR is found when the same DATA_DIR is set for this command too (export it, or DATA_DIR=… pnpm cli …).',
    );
  }
  const parsed = JSON.parse(text) as Partial<AdminEndpoint>;
  if (typeof parsed.url !== 'string' || typeof parsed.token !== 'string') throw new CliError(`${file} is not a gateway admin file.`);
  return { url: parsed.url, token: parsed.token };
}

/** The typed client of the admin contract: every path, body and answer is checked at compile time. */
export function createAdminClient(endpoint: AdminEndpoint) {
  return initClient(adminContract, {
    baseUrl: endpoint.url.replace(/\/+$/, ''),
    baseHeaders: { authorization: `Bearer ${endpoint.token}` },
    throwOnUnknownStatus: false,
    // A gateway that is down is a message for the operator, not a stack trace; a hung one gives up.
    api: async (args) => {
      try {
        return await tsRestFetchApi({ ...args, fetchOptions: { ...args.fetchOptions, signal: AbortSignal.timeout(30_000) } });
      } catch {
        throw new CliError(`The gateway admin API at ${endpoint.url} is not reachable. Is the service running?`);
      }
    },
  });
}
export type AdminClient = ReturnType<typeof createAdminClient>;

interface ErrorBody {
  error?: { code?: string; message?: string; param?: string; detail?: string };
}

/** The answer's body when the call succeeded; otherwise a CliError saying what was refused and why. */
export async function succeeded<R extends { status: number; body: unknown }>(call: Promise<R>): Promise<Extract<R, { status: 200 | 201 }>['body']> {
  const response = await call;
  if (response.status >= 200 && response.status < 300) return response.body;
  const error = (response.body as ErrorBody | undefined)?.error;
  const where = error?.param ? ` (${error.param})` : '';
  const detail = error?.detail ? `: ${error.detail}` : '';
  throw new CliError(`${error?.code ?? `HTTP ${response.status}`}${where}: ${error?.message ?? 'request failed'}${detail}`);
}
