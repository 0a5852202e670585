import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Reply } from '../../src/local-stack.ts';

export interface Operator {
  call(method: string, pathname: string, body?: unknown): Promise<Reply>;
  /** A new account with a test and a live key (their secrets). */
  createAccount(name: string): Promise<{ id: string; test: string; live: string }>;
  /** PATCH /admin/accounts/{id}: verification, live balance, live ordering. */
  setAccount(accountId: string, settings: Record<string, unknown>): Promise<Reply['body']>;
}

/**
 * The operator's admin API of a running stack. A running gateway tells the operator CLI where
 * its admin API is (`admin.json` in DATA_DIR); so does it tell the tests.
 */
export async function operatorOf(dataDir: string): Promise<Operator> {
  const admin = JSON.parse(await readFile(path.join(dataDir, 'admin.json'), 'utf8')) as { url: string; token: string };
  const call = async (method: string, pathname: string, body?: unknown): Promise<Reply> => {
    const response = await fetch(`${admin.url}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Reply['body'], headers: response.headers };
  };
  return {
    call,
    async createAccount(name) {
      const created = await call('POST', '/admin/accounts', { name });
      if (created.status !== 201) throw new Error(`account not created: ${JSON.stringify(created.body)}`);
      const keys = created.body.keys as { test: { secret: string }; live: { secret: string } };
      return { id: created.body.id as string, test: keys.test.secret, live: keys.live.secret };
    },
    async setAccount(accountId, settings) {
      const res = await call('PATCH', `/admin/accounts/${accountId}`, settings);
      if (res.status !== 200) throw new Error(`account not updated: ${JSON.stringify(res.body)}`);
      return res.body;
    },
  };
}
