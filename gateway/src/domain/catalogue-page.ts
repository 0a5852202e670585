import { toPage, type Caller, type CursorCodec, type ListPage } from '@connectivity/platform';
import { z } from 'zod';

/** A page as the list routes take it (the contract's pagination query, parsed). */
export interface PageQuery {
  cursor?: string | undefined;
  limit: number;
}

const indexPosition = z.number().int().min(0);

/**
 * A page of a fixed catalogue (event types, error codes), in catalogue order; the cursor holds
 * the index of the next item and is bound to the list, the account and the environment.
 */
export function cataloguePage<T>(items: readonly T[], list: string, caller: Caller, query: PageQuery, cursors: CursorCodec): ListPage<T> {
  const binding = { list, account: caller.accountId, environment: caller.environment };
  const start = query.cursor === undefined ? 0 : cursors.decode(query.cursor, binding, indexPosition);
  const fetched = items.slice(start, start + query.limit + 1).map((item, i) => ({ item, index: start + i }));
  const page = toPage(fetched, query.limit, (last) => cursors.encode(last.index + 1, binding));
  return { ...page, data: page.data.map(({ item }) => item) };
}
