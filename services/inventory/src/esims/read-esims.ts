import type { Esim, List } from '@connectivity/contracts';
import { toPage, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { esimRepository } from '../db/esim-repository.ts';
import { assertCanReach, notFound, type Caller } from '../domain/access.ts';
import { toPublicEsim } from '../domain/esim.ts';

const positionSchema = z.object({ created_at: z.number().int(), id: z.string().min(1) });

/** GET /v1/esim/{id}: by id or ICCID, within the caller's reach. */
export async function getEsim(knex: Knex, caller: Caller, idOrIccid: string): Promise<Esim> {
  const esim = await esimRepository.find(knex, idOrIccid);
  if (!esim) throw notFound();
  assertCanReach(esim, caller);
  return toPublicEsim(esim);
}

/** GET /v1/esim: newest first then id, with a cursor bound to the account and environment. */
export async function listEsims(
  knex: Knex,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number },
): Promise<List<Esim>> {
  const binding = { list: 'esims', accountId: caller.accountId, environment: caller.environment };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const records = await esimRepository.list(knex, caller, after, query.limit + 1);
  return toPage(records.map(toPublicEsim), query.limit, (last) => cursors.encode({ created_at: last.created_at, id: last.id }, binding));
}
