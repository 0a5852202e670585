import { SUPPLIER_RELEASE_STATUSES, type List, type SupplierRelease, type SupplierReleaseStatus } from '@connectivity/contracts';
import { CliError, succeeded } from './admin-client.ts';
import { json, need, type Command } from './command.ts';

const releaseLine = (r: SupplierRelease) =>
  `${r.id}  ${r.status}  ${r.account_id}  ${r.iccids.length} profile(s)  attempts ${r.attempts}  reason ${r.reason}${r.last_error ? `  last error: ${r.last_error}` : ''}`;

/**
 * Supplier releases: profiles of live orders we failed to record, terminated at the supplier by
 * inventory's worker. An abandoned one (the supplier said it cannot terminate) waits for the
 * operator, who retries it once the cause is fixed.
 */
export const RELEASE_COMMANDS: Record<string, Command> = {
  'releases list': {
    usage: `releases list [--status ${SUPPLIER_RELEASE_STATUSES.join('|')}] [--json]`,
    summary: 'List supplier releases (newest first), all of them or those of one status.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const status = args.values.status;
      if (status !== undefined && !(SUPPLIER_RELEASE_STATUSES as readonly string[]).includes(status)) {
        throw new CliError(`--status must be one of ${SUPPLIER_RELEASE_STATUSES.join(', ')}.`);
      }
      // Every page: an operator wants the whole list, and the abandoned ones are few.
      const releases: SupplierRelease[] = [];
      let cursor: string | null = null;
      do {
        const page: List<SupplierRelease> = await succeeded(
          client.supplierReleases.listSupplierReleases({
            query: { limit: 100, ...(status && { status: status as SupplierReleaseStatus }), ...(cursor && { cursor }) },
          }),
        );
        releases.push(...page.data);
        cursor = page.next_cursor;
      } while (cursor);
      if (args.values.json) return json(out, releases);
      if (releases.length === 0) return out.log(status ? `No ${status} supplier releases.` : 'No supplier releases.');
      for (const release of releases) out.log(releaseLine(release));
    },
  },
  'releases retry': {
    usage: 'releases retry <release_id> [--json]',
    summary: 'Put an abandoned (or pending) supplier release back to pending; the worker tries it at once.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const id = need(args, 2, 'release id');
      const release = await succeeded(client.supplierReleases.retrySupplierRelease({ params: { releaseId: id }, body: {} }));
      if (args.values.json) return json(out, release);
      out.log(`Release ${release.id} is pending again; the worker retries it now.`);
    },
  },
};
