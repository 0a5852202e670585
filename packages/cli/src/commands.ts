import { parseArgs } from 'node:util';
import type { ApiKey, Scope } from '@connectivity/contracts';
import { CliError, succeeded } from './admin-client.ts';
import { json, need, type Args, type Command } from './command.ts';
import { EVENT_COMMANDS } from './event-commands.ts';
import { LISTEN_COMMANDS } from './listen/listen-command.ts';
import { LOG_COMMANDS } from './log-commands.ts';
import { MONEY_COMMANDS } from './money-commands.ts';
import { RELEASE_COMMANDS } from './release-commands.ts';
import { TRIGGER_COMMANDS } from './trigger-command.ts';

// Passed on as typed; the admin API refuses an unknown scope with the error object, naming it.
const scopesOf = (value: string | undefined) =>
  value
    ?.split(',')
    .map((scope) => scope.trim())
    .filter(Boolean) as Scope[] | undefined;

const keyLine = (key: ApiKey) => `${key.id}  ${key.environment}  ${key.prefix}…${key.last4}  ${key.status}  ${key.scopes.join(',')}`;

/** Every command, by its words. Accounts and keys are created only here, never by the public API. */
export const COMMANDS: Record<string, Command> = {
  'account create': {
    usage: 'account create [--name <name>] [--json]',
    summary: 'Create an account with a test and a live key; the keys are shown this once.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const account = await succeeded(client.accounts.createAccount({ body: { ...(args.values.name && { name: args.values.name }) } }));
      if (args.values.json) return json(out, account);
      out.log(`Account ${account.id}`);
      out.log(`  test key: ${account.keys.test.secret}`);
      out.log(`  live key: ${account.keys.live.secret}`);
      out.log('Store the keys now: they are not shown again.');
    },
  },
  'account show': {
    usage: 'account show <account_id> [--json]',
    summary: 'Show an account and its keys (never a secret).',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const account = await succeeded(client.accounts.getAccount({ params: { accountId: need(args, 2, 'account id') } }));
      if (args.values.json) return json(out, account);
      out.log(`Account ${account.id}  version ${account.pinned_version ?? '(not pinned yet)'}  rate limit ${account.rate_limit_per_minute ?? 'default'}`);
      for (const key of account.keys) out.log(`  ${keyLine(key)}`);
    },
  },
  'key issue': {
    usage: 'key issue <account_id> --env test|live [--scopes a,b] [--json]',
    summary: 'Issue the account’s key for an environment, revoking the active one (rotation).',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const env = args.values.env;
      if (env !== 'test' && env !== 'live') throw new CliError('--env must be test or live.');
      const key = await succeeded(
        client.accounts.issueKey({
          params: { accountId: need(args, 2, 'account id') },
          body: { environment: env, ...(args.values.scopes && { scopes: scopesOf(args.values.scopes) }) },
        }),
      );
      if (args.values.json) return json(out, key);
      if (key.replaced) out.log(`Revoked ${key.replaced.id}`);
      out.log(`Issued ${key.id}: ${key.secret}`);
      out.log('Store the key now: it is not shown again.');
    },
  },
  'key restrict': {
    usage: 'key restrict <key_id> --scopes a,b [--json]',
    summary: 'Set the scopes of a key.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const scopes = scopesOf(args.values.scopes);
      if (!scopes || scopes.length === 0) throw new CliError('--scopes needs at least one scope, e.g. --scopes esim:read,catalogue:read');
      const key = await succeeded(client.keys.restrictKey({ params: { keyId: need(args, 2, 'key id') }, body: { scopes } }));
      if (args.values.json) return json(out, key);
      out.log(keyLine(key));
    },
  },
  'key revoke': {
    usage: 'key revoke <key_id> [--json]',
    summary: 'Revoke a key; it is refused from now on (401 key_revoked).',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const key = await succeeded(client.keys.revokeKey({ params: { keyId: need(args, 2, 'key id') }, body: {} }));
      if (args.values.json) return json(out, key);
      out.log(keyLine(key));
    },
  },
  'account verify': {
    usage: 'account verify <account_id> [--unverify] [--json]',
    summary: 'Mark an account verified (needed for live orders), or not.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const result = await succeeded(
        client.accounts.updateAccount({
          params: { accountId: need(args, 2, 'account id') },
          body: {
            verified: !args.values.unverify,
          },
        }),
      );
      if (args.values.json) return json(out, result);
      out.log(`Account ${need(args, 2, 'account id')} is ${args.values.unverify ? 'not verified' : 'verified'}.`);
    },
  },
  'account balance': {
    usage: 'account balance <account_id> <cents> [--json]',
    summary: 'Set the available live balance, in US cents (the difference is recorded as an `adjustment` balance transaction).',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const raw = need(args, 3, 'balance in cents');
      if (!/^\d+$/.test(raw)) throw new CliError('The balance must be a whole number of cents, 0 or more.');
      const result = await succeeded(
        client.accounts.updateAccount({
          params: { accountId: need(args, 2, 'account id') },
          body: {
            live_balance_cents: Number(raw),
          },
        }),
      );
      if (args.values.json) return json(out, result);
      out.log(`Live balance of ${need(args, 2, 'account id')}: ${raw} cents.`);
    },
  },
  'account live-ordering': {
    usage: 'account live-ordering <account_id> on|off [--json]',
    summary: 'Switch the account’s live ordering (live catalogue and live orders) on or off; on by default.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const raw = need(args, 3, 'on or off');
      if (raw !== 'on' && raw !== 'off') throw new CliError('Live ordering is switched "on" or "off".');
      const result = await succeeded(
        client.accounts.updateAccount({
          params: { accountId: need(args, 2, 'account id') },
          body: {
            live_ordering: raw === 'on',
          },
        }),
      );
      if (args.values.json) return json(out, result);
      out.log(`Live ordering of ${need(args, 2, 'account id')}: ${raw}.`);
    },
  },
  'account rate-limit': {
    usage: 'account rate-limit <account_id> <per_minute|default> [--json]',
    summary: 'Give an account its own requests-per-minute budget (per key), or go back to the default.',
    async run(ctx, args, out) {
      const client = await ctx.admin();
      const raw = need(args, 3, 'requests per minute');
      if (raw !== 'default' && !/^[1-9]\d*$/.test(raw)) throw new CliError('The budget must be a positive whole number or "default".');
      const result = await succeeded(
        client.accounts.updateAccount({
          params: { accountId: need(args, 2, 'account id') },
          body: {
            rate_limit_per_minute: raw === 'default' ? null : Number(raw),
          },
        }),
      );
      if (args.values.json) return json(out, result);
      out.log(`Rate limit of ${need(args, 2, 'account id')}: ${raw}.`);
    },
  },
  ...MONEY_COMMANDS,
  ...RELEASE_COMMANDS,
  ...LOG_COMMANDS,
  ...EVENT_COMMANDS,
  ...TRIGGER_COMMANDS,
  ...LISTEN_COMMANDS,
};

export function usage(): string {
  const lines = Object.values(COMMANDS).map((command) => `  pnpm cli ${command.usage}\n      ${command.summary}`);
  return (
    `Operator command line of the Connectivity Service.\n\n${lines.join('\n')}\n\n` +
    "Account, key and release commands use the gateway's admin API: ADMIN_URL and ADMIN_TOKEN, or DATA_DIR/admin.json of a running pnpm start.\n" +
    'listen, logs, events and trigger use the public API with your own key, as an integrator: --key or CONNECTIVITY_API_KEY (else the test key\n' +
    'of a running pnpm start, DATA_DIR/dev-keys.json), at --url or CONNECTIVITY_API_URL (default http://localhost:8080).'
  );
}

export function parseCommand(argv: string[]): { command: Command; args: Args } | undefined {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      name: { type: 'string' },
      env: { type: 'string' },
      scopes: { type: 'string' },
      unverify: { type: 'boolean' },
      status: { type: 'string' },
      key: { type: 'string' },
      url: { type: 'string' },
      follow: { type: 'boolean', short: 'f' },
      limit: { type: 'string' },
      interval: { type: 'string' },
      'forward-to': { type: 'string' },
      events: { type: 'string' },
      secret: { type: 'string' },
      description: { type: 'string' },
    },
  });
  // Two words name most commands (`account create`), one word the rest (`trigger <type>`, `listen`).
  const command = COMMANDS[`${positionals[0] ?? ''} ${positionals[1] ?? ''}`] ?? COMMANDS[positionals[0] ?? ''];
  return command ? { command, args: { positionals, values } } : undefined;
}
