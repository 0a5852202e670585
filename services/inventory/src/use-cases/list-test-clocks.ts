import type { List, TestClock } from '@connectivity/contracts';
import { toPage, type Caller, type CursorCodec } from '@connectivity/platform';
import type { Knex } from 'knex';
import { z } from 'zod';
import { testClockPage } from '../db/test-clock-repository.ts';
import { assertSandboxCaller, toPublicTestClock } from '../domain/test-clock.ts';

const positionSchema = z.object({ created_at: z.number().int(), id: z.string().min(1) });

/** GET /v1/test/clocks: newest first then id, with a cursor bound to the account and environment. */
export async function listTestClocks(
  knex: Knex,
  cursors: CursorCodec,
  caller: Caller,
  query: { cursor?: string | undefined; limit: number },
  now = new Date(),
): Promise<List<TestClock>> {
  assertSandboxCaller(caller.environment);
  const binding = { list: 'test_clocks', accountId: caller.accountId, environment: caller.environment };
  const after = query.cursor === undefined ? undefined : cursors.decode(query.cursor, binding, positionSchema);
  const records = await testClockPage(knex, caller, after, query.limit + 1);
  return toPage(
    records.map((clock) => toPublicTestClock(clock, now.getTime())),
    query.limit,
    (last) => cursors.encode({ created_at: last.created_at, id: last.id }, binding),
  );
}
