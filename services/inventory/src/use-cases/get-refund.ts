import type { Refund } from '@connectivity/contracts';
import type { Caller } from '@connectivity/platform';
import type { Knex } from 'knex';
import { findRefund } from '../db/refund-repository.ts';
import { assertCanReach, notFound } from '../domain/access.ts';
import { toPublicRefund } from '../domain/refund.ts';

/** GET /v1/refunds/{id}: the caller's refund; another account's does not exist for it. */
export async function getRefund(knex: Knex, caller: Caller, id: string): Promise<Refund> {
  const refund = await findRefund(knex, id);
  if (!refund) throw notFound('id', 'refund');
  assertCanReach(refund, caller, 'id', 'refund');
  return toPublicRefund(refund);
}
