import type { Connectivity } from '@connectivity/sdk';
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
    key?: string;
    url?: string;
    follow?: boolean;
    limit?: string;
    interval?: string;
    'forward-to'?: string;
    events?: string;
    secret?: string;
    description?: string;
  };
};

/**
 * The two APIs a command may use, made only when it asks: the operator's admin API (admin
 * token), and the public API with an integrator's key (through the SDK, as an integrator would).
 */
export interface CommandContext {
  admin(): Promise<AdminClient>;
  api(): Promise<ApiSession>;
  /** Stops a long-running command (`logs tail --follow`, `listen`); tests abort it, a person presses Ctrl-C. */
  signal?: AbortSignal | undefined;
  config: CliConfig;
}

/** The SDK on the integrator's key, with the key and URL it was made from. */
export interface ApiSession {
  client: Connectivity;
  key: string;
  baseUrl: string;
}

export interface Command {
  usage: string;
  summary: string;
  run(ctx: CommandContext, args: Args, out: Output): Promise<void>;
}

export const json = (out: Output, value: unknown) => out.log(JSON.stringify(value, null, 2));

export function need(args: Args, index: number, what: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === '') throw new CliError(`Missing ${what}.`);
  return value;
}
