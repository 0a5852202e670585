import type { Esim, List, Metadata } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { esimPage } from '../db/esim-repository.ts';
import { toPublicEsim } from '../domain/esim.ts';
import { sortedMetadata } from '../domain/metadata.ts';

const positionSchema = z.object({ created_at: z.number().int(), id: z.string().min(1) });

/**
 * GET /v1/esim: newest first then id, with a cursor bound to the account, the environment and the
 * metadata filter (its pairs in key order), so a cursor cannot be carried over to another filter.
 */
export async function listEsims(
  knex: Knex,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number; metadata?: Metadata | undefined },
): Promise<List<Esim>> {
  const filter = sortedMetadata(query.metadata ?? {});
  const binding = {
    list: 'esims',
    accountId: caller.accountId,
    environment: caller.environment,
    metadata: Object.keys(filter).length > 0 ? JSON.stringify(Object.entries(filter)) : undefined,
  };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const records = await esimPage(knex, caller, after, query.limit + 1, filter);
  return toPage(records.map(toPublicEsim), query.limit, (last) => cursors.encode({ created_at: last.created_at, id: last.id }, binding));
}
