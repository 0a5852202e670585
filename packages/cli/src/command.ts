import { CliError, type AdminClient } from './admin-client.ts';

/** What every command is made of; its own file so command groups can live in files of their own. */
export interface Output {
  log(line: string): void;
}

export type Args = { positionals: string[]; values: { json?: boolean; name?: string; env?: string; scopes?: string; unverify?: boolean; status?: string } };

export interface Command {
  usage: string;
  summary: string;
  run(client: AdminClient, args: Args, out: Output): Promise<void>;
}

export const json = (out: Output, value: unknown) => out.log(JSON.stringify(value, null, 2));

export function need(args: Args, index: number, what: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === '') throw new CliError(`Missing ${what}.`);
  return value;
}

