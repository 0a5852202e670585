import { newId } from '@connectivity/platform';
import type { Knex } from 'knex';
import { SCHEMA } from '../schema.ts';

/**
 * Money as a ledger (records 0156-0158):
 * - `balances`, one row per account and environment: what can be spent (`available_cents`, never
 *   negative), what live purchases in flight hold (`pending_cents`), the low-balance threshold and
 *   whether `balance.low` was sent since the balance last stood above it. A test row exists only once a
 *   simulated balance was set (`enforced`: it is in use).
 * - `balance_transactions`, append-only: every movement, with the available balance after it.
 * - `refunds`: the money of a cancelled live eSIM, pending until the supplier has refunded us.
 * - purchase intents keep the hold they took (`hold_cents`) and, when the supplier's answer is unknown,
 *   until when no second purchase may be made (`in_doubt_until`, Unix ms) and the vendor's request id.
 * - a termination fact keeps what the supplier did about money, for the move that records the cancel;
 * - `audited_vendor_orders`: the vendor's orders the audit against ours has settled (record 0161).
 * Each live balance the operator had set opens with an `adjustment` of that amount. The old
 * `accounts.live_balance_cents` stays for instances of the previous release during a rolling deploy;
 * nothing reads it any more.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(
    `create table ??.balances (
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      available_cents bigint not null default 0 check (available_cents >= 0),
      pending_cents bigint not null default 0 check (pending_cents >= 0),
      enforced boolean not null default true,
      low_threshold_cents bigint check (low_threshold_cents >= 0),
      low_notified boolean not null default false,
      updated_at bigint not null,
      primary key (account_id, environment)
    )`,
    [SCHEMA],
  );
  await knex.raw(
    `create table ??.balance_transactions (
      id text primary key,
      seq bigserial not null,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      type text not null check (type in ('order', 'order_release', 'refund', 'credit', 'adjustment')),
      amount_cents bigint not null,
      balance_after_cents bigint not null check (balance_after_cents >= 0),
      source text,
      description text,
      created_at bigint not null
    )`,
    [SCHEMA],
  );
  // Newest first in the order they were made (`seq`: one balance's movements are made one at a time,
  // under its row lock, so the sequence orders them even within a millisecond or across instances).
  await knex.raw('create index balance_transactions_list_idx on ??.balance_transactions (account_id, environment, seq desc)', [SCHEMA]);
  await knex.raw('create index balance_transactions_source_idx on ??.balance_transactions (source, seq desc) where source is not null', [SCHEMA]);

  await knex.raw(
    `create table ??.refunds (
      id text primary key,
      account_id text not null,
      environment text not null check (environment in ('test', 'live')),
      esim_id text not null unique,
      order_id text not null,
      iccid text not null,
      amount_cents bigint not null check (amount_cents >= 0),
      currency text not null,
      status text not null check (status in ('pending', 'succeeded', 'failed')),
      reason text not null,
      failure_reason text,
      vendor_refund_id text,
      next_check_at bigint,
      created_at bigint not null,
      updated_at bigint not null
    )`,
    [SCHEMA],
  );
  await knex.raw('create index refunds_list_idx on ??.refunds (account_id, environment, id desc)', [SCHEMA]);
  await knex.raw("create index refunds_due_idx on ??.refunds (next_check_at) where status = 'pending'", [SCHEMA]);

  await knex.raw(
    `alter table ??.purchase_intents
       add column hold_cents bigint not null default 0,
       add column in_doubt_until bigint,
       add column vendor_request_id text`,
    [SCHEMA],
  );
  // The live purchases in flight of one account (capped per account).
  await knex.raw("create index purchase_intents_in_flight_idx on ??.purchase_intents (account_id) where state = 'pending'", [SCHEMA]);
  await knex.raw('alter table ??.supplier_terminations add column refund text, add column vendor_refund_id text', [SCHEMA]);
  // The vendor orders the audit has settled (ours, released, or found orphan and released), so a
  // later pass does not look at them again; kept for the audit's look-back.
  await knex.raw(
    `create table ??.audited_vendor_orders (
      vendor text not null,
      vendor_order_id text not null,
      verdict text not null,
      audited_at bigint not null,
      primary key (vendor, vendor_order_id)
    )`,
    [SCHEMA],
  );

  const now = Math.floor(Date.now() / 1000);
  const funded = await knex
    .withSchema(SCHEMA)
    .from('accounts')
    .select<{ account_id: string; live_balance_cents: string | number }[]>('account_id', 'live_balance_cents');
  for (const account of funded) {
    const amount = Number(account.live_balance_cents);
    await knex.withSchema(SCHEMA).table('balances').insert({ account_id: account.account_id, environment: 'live', available_cents: amount, updated_at: now });
    if (amount === 0) continue;
    await knex
      .withSchema(SCHEMA)
      .table('balance_transactions')
      .insert({
        id: newId('balanceTransaction'),
        account_id: account.account_id,
        environment: 'live',
        type: 'adjustment',
        amount_cents: amount,
        balance_after_cents: amount,
        source: null,
        description: 'Opening balance',
        created_at: now,
      });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop table if exists ??.audited_vendor_orders', [SCHEMA]);
  await knex.raw('alter table ??.supplier_terminations drop column refund, drop column vendor_refund_id', [SCHEMA]);
  await knex.raw('drop index if exists ??.purchase_intents_in_flight_idx', [SCHEMA]);
  await knex.raw('alter table ??.purchase_intents drop column hold_cents, drop column in_doubt_until, drop column vendor_request_id', [SCHEMA]);
  await knex.raw('drop table if exists ??.refunds', [SCHEMA]);
  await knex.raw('drop table if exists ??.balance_transactions', [SCHEMA]);
  await knex.raw('drop table if exists ??.balances', [SCHEMA]);
}
