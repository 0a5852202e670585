import type { Esim, List, Metadata } from '@connectivity/contracts';
import { toPage, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { esimRepository } from '../db/esim-repository.ts';
import { assertCanReach, notFound, type Caller } from '../domain/access.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';
import { sortedMetadata } from '../domain/metadata.ts';

const positionSchema = z.object({ created_at: z.number().int(), id: z.string().min(1) });

/** The eSIM named by id or ICCID, within the caller's reach (404 for another account's, 403 across environments). */
export async function findReachableEsim(knex: Knex, caller: Caller, idOrIccid: string): Promise<EsimRecord> {
  const esim = await esimRepository.find(knex, idOrIccid);
  if (!esim) throw notFound();
  assertCanReach(esim, caller);
  return esim;
}

/** GET /v1/esim/{id}: by id or ICCID, within the caller's reach. */
export async function getEsim(knex: Knex, caller: Caller, idOrIccid: string): Promise<Esim> {
  return toPublicEsim(await findReachableEsim(knex, caller, idOrIccid));
}

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
  const records = await esimRepository.list(knex, caller, after, query.limit + 1, filter);
  return toPage(records.map(toPublicEsim), query.limit, (last) => cursors.encode({ created_at: last.created_at, id: last.id }, binding));
}
