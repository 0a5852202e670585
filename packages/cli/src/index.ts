export { run } from './run.ts';
export { COMMANDS, usage } from './commands.ts';
export { resolveEndpoint, createAdminClient, CliError, type AdminEndpoint, type AdminClient } from './admin-client.ts';
export { loadCliConfig, type CliConfig } from './config.ts';
export { listen, newWebhookSecret, ListenError, type ListenOptions, type Listener } from './listen/listen.ts';
