import { putToService, type InternalTarget } from './internal-put.ts';

/**
 * The live-ordering switch belongs to catalogue, which fronts the supplier and answers both the
 * live catalogue and the supply of live orders; the admin API passes it on to catalogue.
 */
export async function putLiveOrdering(target: InternalTarget & { requestId: string }, accountId: string, enabled: boolean): Promise<boolean> {
  const answer = (await putToService({ ...target, service: 'catalogue' }, `/internal/accounts/${encodeURIComponent(accountId)}/live-ordering`, { enabled })) as {
    enabled?: unknown;
  };
  return answer.enabled === true;
}
