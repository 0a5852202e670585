import { CliError, createAdminClient, resolveEndpoint, type AdminClient } from './admin-client.ts';
import type { Output } from './command.ts';
import { parseCommand, usage } from './commands.ts';
import { loadCliConfig } from './config.ts';

// A command of the public API never reaches for the admin API.
const noAdmin: AdminClient = {
  call: () => Promise.reject(new CliError('This command does not use the admin API.')),
};

/** Runs one command; resolves with the exit code. Errors are printed for a person, without a stack. */
export async function run(argv: string[], options: { env?: NodeJS.ProcessEnv; out?: Output; err?: Output; signal?: AbortSignal } = {}): Promise<number> {
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
    const client = parsed.command.admin === false ? noAdmin : createAdminClient(await resolveEndpoint(config));
    await parsed.command.run(client, parsed.args, out, { config, signal: options.signal });
    return 0;
  } catch (error) {
    if (error instanceof CliError) {
      err.log(`Error: ${error.message}`);
      return 1;
    }
    throw error;
  }
}
