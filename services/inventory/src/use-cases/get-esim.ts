import type { Esim } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { findEsim } from '../db/esim-repository.ts';
import { assertCanReach, notFound } from '../domain/access.ts';
import { toPublicEsim, type EsimRecord } from '../domain/esim.ts';

/** The eSIM named by id or ICCID, within the caller's reach (404 for another account's, 403 across environments). */
export async function findReachableEsim(knex: Knex, caller: Caller, idOrIccid: string): Promise<EsimRecord> {
  const esim = await findEsim(knex, idOrIccid);
  if (!esim) throw notFound();
  assertCanReach(esim, caller);
  return esim;
}

/** GET /v1/esim/{id}: by id or ICCID, within the caller's reach. */
export async function getEsim(knex: Knex, caller: Caller, idOrIccid: string): Promise<Esim> {
  return toPublicEsim(await findReachableEsim(knex, caller, idOrIccid));
}
