import { CliError, succeeded } from './admin-client.ts';
import { json, need, type Command } from './command.ts';

const cents = (raw: string, what: string, min = 0): number => {
  if (!/^\d+$/.test(raw) || Number(raw) < min) throw new CliError(`The ${what} must be a whole number of cents, ${min} or more.`);
  return Number(raw);
};

/**
 * The operator's side of the ledger (records 0156-0158): money added to a live balance, the
 * low-balance threshold, and a vendor's decision on a refund it reviews by hand and announces by
 * notice (Airalo's rejections have no API).
 */
export const MONEY_COMMANDS: Record<string, Command> = {
  'account credit': {
    usage: 'account credit <account_id> <cents> [--description <text>] [--json]',
    summary: 'Add money to the live balance, in US cents (a `credit` balance transaction).',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const accountId = need(args, 2, 'account id');
      const amount = cents(need(args, 3, 'amount in cents'), 'credit', 1);
      const description = args.values.description;
      const transaction = await succeeded(
        client.accounts.creditAccount({ params: { accountId }, body: { amount_cents: amount, ...(description !== undefined && { description }) } }),
      );
      if (args.values.json) return json(out, transaction);
      out.log(`Credited ${amount} cents to ${accountId}: ${transaction.id}; the live balance is now ${transaction.balance_after_cents} cents.`);
    },
  },
  'account low-balance': {
    usage: 'account low-balance <account_id> <cents|off> [--json]',
    summary: 'Send balance.low when the live balance falls below this many US cents (once per crossing); off: never.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const accountId = need(args, 2, 'account id');
      const raw = need(args, 3, 'threshold in cents, or off');
      const threshold = raw === 'off' ? null : cents(raw, 'threshold');
      const result = await succeeded(client.accounts.updateAccount({ params: { accountId }, body: { low_balance_threshold_cents: threshold } }));
      if (args.values.json) return json(out, result);
      out.log(threshold === null ? `No low-balance threshold for ${accountId}.` : `balance.low for ${accountId} below ${threshold} cents.`);
    },
  },
  'refunds settle': {
    usage: 'refunds settle <refund_id> succeeded|failed [--json]',
    summary: 'Record the vendor’s decision on a pending refund from its notice: failed (rejected; nothing credited) or succeeded (credited).',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const refundId = need(args, 2, 'refund id');
      const status = need(args, 3, 'succeeded or failed');
      if (status !== 'succeeded' && status !== 'failed') throw new CliError('A refund is settled as "succeeded" or "failed".');
      const refund = await succeeded(client.refunds.settleRefund({ params: { refundId }, body: { status } }));
      if (args.values.json) return json(out, refund);
      out.log(`Refund ${refund.id} of ${refund.esim}: ${refund.status}${refund.failure_reason ? ` (${refund.failure_reason})` : ''}.`);
    },
  },
};
