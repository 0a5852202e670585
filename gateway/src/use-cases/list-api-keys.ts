import type { ApiKey } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec, type ListPage } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { listKeys } from '../db/keys-repository.ts';
import { toApiKey } from '../domain/api-key.ts';
import type { PageQuery } from '../domain/catalogue-page.ts';

const idPosition = z.string().min(1);

/** GET /v1/api_keys: the caller's account's keys of the caller's environment, in creation order. */
export async function listApiKeys(deps: { knex: Knex; cursors: CursorCodec }, caller: Caller, query: PageQuery): Promise<ListPage<ApiKey>> {
  const binding = { list: 'api_keys', account: caller.accountId, environment: caller.environment };
  const afterId = query.cursor === undefined ? undefined : deps.cursors.decode(query.cursor, binding, idPosition);
  const rows = await listKeys(deps.knex, caller.accountId, caller.environment, { afterId, limit: query.limit + 1 });
  const page = toPage(rows, query.limit, (last) => deps.cursors.encode(last.id, binding));
  return { ...page, data: page.data.map(toApiKey) };
}
