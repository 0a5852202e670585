import { ConnectionError, ConnectivityError } from '@connectivity/sdk';
import { createApiClient, resolveApiKey } from './api-client.ts';
import { CliError, createAdminClient, resolveEndpoint, type AdminClient } from './admin-client.ts';
import type { CommandContext, Output } from './command.ts';
import { parseCommand, usage } from './commands.ts';
import { loadCliConfig } from './config.ts';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  out?: Output;
  err?: Output;
  /** Ends a command that runs until stopped (`logs tail --follow`). */
  signal?: AbortSignal;
}

/** Runs one command; resolves with the exit code. Errors are printed for a person, without a stack. */
export async function run(argv: string[], options: RunOptions = {}): Promise<number> {
  const out = options.out ?? { log: (line: string) => console.log(line) };
  const err = options.err ?? { log: (line: string) => console.error(line) };
  const wantsHelp = argv.length === 0 || argv.includes('--help') || argv.includes('-h') || argv[0] === 'help';
  if (wantsHelp) {
    out.log(usage());
    return 0;
  }
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(argv);
  } catch (error) {
    err.log(`${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  if (!parsed) {
    err.log(usage());
    return 2;
  }
  try {
    const config = loadCliConfig(options.env);
    const { values } = parsed.args;
    let admin: AdminClient | undefined;
    const ctx: CommandContext = {
      admin: async () => (admin ??= createAdminClient(await resolveEndpoint(config))),
      api: async () => {
        const key = await resolveApiKey(config, values.key);
        const baseUrl = values.url ?? config.CONNECTIVITY_API_URL;
        return { client: createApiClient(baseUrl, key), key, baseUrl };
      },
      signal: options.signal,
      config,
    };
    await parsed.command.run(ctx, parsed.args, out);
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      err.log(`Error: ${error.message}`);
      return 1;
    }
    // The public API's refusals, as the SDK reports them: the code, the parameter, and the id to quote.
    if (error instanceof ConnectivityError) {
      const where = error.param ? ` (${error.param})` : '';
      err.log(`Error: ${error.code}${where}: ${error.message}${error.requestId ? ` [${error.requestId}]` : ''}`);
      return 1;
    }
    if (error instanceof ConnectionError) {
      err.log(`Error: the API is not reachable (${error.message}). Is the service running, and is --url or CONNECTIVITY_API_URL right?`);
      return 1;
    }
    if (error instanceof Error && error.name === 'AbortError') return 0;
    throw error;
  }
}
