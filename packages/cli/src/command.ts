import { CliError, type AdminClient } from './admin-client.ts';
import type { CliConfig } from './config.ts';

/** What every command is made of; its own file so command groups can live in files of their own. */
export interface Output {
  log(line: string): void;
}

export type Args = {
  positionals: string[];
  values: {
    json?: boolean;
    name?: string;
    env?: string;
    scopes?: string;
    unverify?: boolean;
    status?: string;
    'forward-to'?: string;
    events?: string;
    'api-key'?: string;
    'base-url'?: string;
    secret?: string;
  };
};

/** What a command may need beside the admin API: the CLI's config, and a stop for long runs (tests). */
export interface CommandContext {
  config: CliConfig;
  signal?: AbortSignal | undefined;
}

export interface Command {
  usage: string;
  summary: string;
  /** False for a command of the public API (listen): no admin API is looked for. */
  admin?: false;
  run(client: AdminClient, args: Args, out: Output, context: CommandContext): Promise<void>;
}

export const json = (out: Output, value: unknown) => out.log(JSON.stringify(value, null, 2));

export function need(args: Args, index: number, what: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === '') throw new CliError(`Missing ${what}.`);
  return value;
}

