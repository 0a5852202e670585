import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { startPoller, type PassResult, type Poller } from '../work/poller.ts';

/**
 * PostgreSQL's autovacuum thresholds, at its defaults: a table is vacuumed once its dead rows pass
 * 50 + 20 % of its live ones, and analysed once its changes since the last analysis pass 50 + 10 %.
 */
const VACUUM_DUE = 'n_dead_tup > 50 + 0.2 * n_live_tup';
const ANALYZE_DUE = 'n_mod_since_analyze > 50 + 0.1 * n_live_tup';

/** How often the embedded database looks for tables due (record 0267). */
export const PGLITE_VACUUM_INTERVAL_MS = 2_000;

interface DueTable {
  schemaname: string;
  relname: string;
  vacuum: boolean;
}

/**
 * One pass of the embedded database's autovacuum: the tables whose dead rows or changes passed
 * PostgreSQL's own thresholds are vacuumed (and analysed), one statement each, so the requests
 * queued for the one backend go between them. PGlite is a single-user backend: it runs no
 * autovacuum, and it reports its table statistics only when asked to (record 0267).
 */
export async function vacuumDueTables(knex: Knex): Promise<PassResult> {
  // The counters of the statements run so far are published at the end of the next one.
  await knex.raw('select pg_stat_force_next_flush()');
  const { rows } = await knex.raw<{ rows: DueTable[] }>(
    `select schemaname, relname, ${VACUUM_DUE} as vacuum from pg_stat_user_tables
     where ${VACUUM_DUE} or ${ANALYZE_DUE} order by n_dead_tup desc`,
  );
  for (const table of rows) {
    const name = `${table.schemaname}.${table.relname}`;
    // A table dropped since the statistics were read (a test's, a migration's) is no error.
    await knex.raw(table.vacuum ? 'vacuum (analyze, skip_locked) ??' : 'analyze (skip_locked) ??', [name]).catch((error: unknown) => {
      if (!(error instanceof Error && /does not exist/.test(error.message))) throw error;
    });
  }
  return { done: rows.length, more: false };
}

/** Runs `vacuumDueTables` every `intervalMs` until stopped; a failed pass is logged and retried. */
export function startPgliteVacuum(knex: Knex, options: { intervalMs?: number | undefined; logger?: Pick<Logger, 'error' | 'info'> | undefined } = {}): Poller {
  return startPoller({
    name: 'embedded database vacuum',
    intervalMs: options.intervalMs ?? PGLITE_VACUUM_INTERVAL_MS,
    ...(options.logger && { logger: options.logger }),
    pass: () => vacuumDueTables(knex),
  });
}
