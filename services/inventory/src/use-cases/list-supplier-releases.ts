import type { List, SupplierRelease, SupplierReleaseStatus } from '@connectivity/contracts';
import { toPage, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { releasePage } from '../db/release-repository.ts';
import { toPublicRelease } from '../domain/supplier-release.ts';

const positionSchema = z.object({ created_at: z.number().int(), order_reference: z.string().min(1) });

/** GET /internal/supplier-releases: newest first, the cursor bound to the status filter. */
export async function listSupplierReleases(
  knex: Knex,
  cursors: CursorCodec,
  query: { status?: SupplierReleaseStatus | undefined; cursor?: string | undefined; limit: number },
): Promise<List<SupplierRelease>> {
  const binding = { list: 'supplier_releases', status: query.status ?? null };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const records = await releasePage(knex, { status: query.status }, after, query.limit + 1);
  const page = toPage(records, query.limit, (last) => cursors.encode({ created_at: last.created_at, order_reference: last.order_reference }, binding));
  return { ...page, data: page.data.map(toPublicRelease) };
}
