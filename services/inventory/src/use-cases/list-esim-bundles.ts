import type { EsimBundle, List } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { esimTime } from '../db/test-clock-repository.ts';
import { topupsOfEsim } from '../db/topup-repository.ts';
import { bundlesOnEsim } from '../domain/topup.ts';
import { findReachableEsim } from './get-esim.ts';

const positionSchema = z.object({ index: z.number().int().min(0) });

/** GET /v1/esim/{id}/bundles: the bundles on the eSIM in the order they are used, each with its state (record 0241). */
export async function listEsimBundles(
  deps: { knex: Knex; cursors: CursorCodec; now?: () => Date },
  caller: Caller,
  idOrIccid: string,
  query: { cursor?: string | undefined; limit: number },
): Promise<List<EsimBundle>> {
  const esim = await findReachableEsim(deps.knex, caller, idOrIccid);
  const binding = { list: 'esim_bundles', accountId: caller.accountId, environment: caller.environment, esim: esim.id };
  const start = query.cursor === undefined ? 0 : deps.cursors.decode(query.cursor, binding, positionSchema).index + 1;
  // Real time, or the test clock's for an eSIM on a clock.
  const at = await esimTime(deps.knex, esim, deps.now ?? (() => new Date()));
  const bundles = bundlesOnEsim(esim, await topupsOfEsim(deps.knex, esim.id), Math.floor(at.getTime() / 1000));
  const indexed = bundles.map((bundle, index) => ({ bundle, index })).slice(start, start + query.limit + 1);
  const page = toPage(indexed, query.limit, (last) => deps.cursors.encode({ index: last.index }, binding));
  return { ...page, data: page.data.map((item) => item.bundle) };
}
