import type { LiveOrdering } from '@connectivity/contracts';
import type { Knex } from 'knex';
import { findLiveOrdering, saveLiveOrdering } from '../db/live-ordering.ts';

/** The operator's live-ordering switch of an account, as it stands. */
export const readLiveOrdering = (deps: { knex: Knex }, accountId: string): Promise<LiveOrdering> => findLiveOrdering(deps.knex, accountId);

/** Switches an account's live ordering on or off (the operator command line, through the gateway's admin API). */
export const switchLiveOrdering = (deps: { knex: Knex }, accountId: string, enabled: boolean): Promise<LiveOrdering> =>
  saveLiveOrdering(deps.knex, accountId, enabled);
