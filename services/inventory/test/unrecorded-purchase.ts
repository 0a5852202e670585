import { createLogger, newId, type Database } from '@connectivity/platform';
import { createCatalogueClient } from '../src/clients/catalogue-client.ts';
import { createTopupClient } from '../src/clients/topup-client.ts';
import { startPurchaseIntentWorker } from '../src/workers/purchase-intent-worker.ts';
import { INTERNAL_TOKEN } from './support.ts';

const logger = createLogger({ name: 'unrecorded-purchase', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * Makes the next order written for `accountId` fail in the database, once: the order's attempt
 * dies after the vendor answered and before anything is recorded, as a kill -9 there would.
 */
export async function failNextOrderWrite(db: Database, accountId: string): Promise<void> {
  const knex = db.knex;
  await knex.raw('create table if not exists public.fail_order_writes (account_id text primary key, seq text not null)');
  // A sequence advances even in a transaction that rolls back: the fault fires once.
  const seq = `fail_${newId('request').slice(4).toLowerCase()}`;
  await knex.raw(`create sequence public.${seq}`);
  await knex('public.fail_order_writes').insert({ account_id: accountId, seq });
  await knex.raw(`
    create or replace function public.fail_order_write_once() returns trigger language plpgsql as $$
    declare s text;
    begin
      select seq into s from public.fail_order_writes where account_id = new.account_id;
      if s is not null and nextval('public.' || s) = 1 then
        raise exception 'simulated crash between the supplier''s answer and our commit';
      end if;
      return new;
    end $$`);
  await knex.raw('drop trigger if exists fail_order_write_once on inventory.orders');
  await knex.raw('create trigger fail_order_write_once before insert on inventory.orders for each row execute function public.fail_order_write_once()');
}

/** Runs the purchase-intent worker once over the account's pending intents, as if their check time had come. */
export async function settleAbandonedIntents(db: Database, catalogueUrl: string, accountId: string, now = () => Date.now()): Promise<number> {
  await db
    .knex('inventory.purchase_intents')
    .where({ account_id: accountId, state: 'pending' })
    .update({ next_check_at: now() - 1 });
  const catalogue = createCatalogueClient({ baseUrl: catalogueUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 5_000, logger });
  const topups = createTopupClient({ baseUrl: catalogueUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 5_000, logger });
  const worker = startPurchaseIntentWorker({ knex: db.knex, catalogue, topups, logger, intervalMs: 3_600_000, leaseMs: 60_000, now });
  try {
    return await worker.runOnce();
  } finally {
    await worker.stop();
  }
}
