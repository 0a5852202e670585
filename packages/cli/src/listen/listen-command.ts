import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from '../admin-client.ts';
import type { Command } from '../command.ts';
import { listen, ListenError } from './listen.ts';

/** The test key of a running `pnpm start` (DATA_DIR/dev-keys.json), when none is given. */
async function devTestKey(dataDir: string): Promise<string | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path.join(dataDir, 'dev-keys.json'), 'utf8')) as { testKey?: unknown };
    return typeof parsed.testKey === 'string' ? parsed.testKey : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `pnpm cli listen --forward-to <url>`: the integrator's own test events, delivered to a local
 * receiver as signed webhooks, with no public URL needed. The key and address come from the
 * flags, else CONNECTIVITY_KEY / CONNECTIVITY_BASE_URL, else the dev key of a local `pnpm start`.
 */
export const LISTEN_COMMAND: Command = {
  usage: 'listen --forward-to <url> [--events esim.*,api_key.*] [--api-key sk_test_...] [--base-url <url>] [--secret whsec_...]',
  summary:
    'Stream the test events of a key (GET /v1/events/stream) and POST each to a local URL, signed like a webhook ' +
    '(Standard Webhooks) with a secret printed at start (new each run, or --secret / CONNECTIVITY_WEBHOOK_SECRET); ' +
    'reconnects with Last-Event-ID, so nothing is lost. Ctrl-C stops.',
  admin: false,
  async run(_client, args, out, context) {
    const forwardTo = args.values['forward-to'];
    if (!forwardTo) throw new CliError('--forward-to is required, e.g. --forward-to http://localhost:3000/hooks');
    if (!URL.canParse(forwardTo)) throw new CliError(`--forward-to is not a URL: ${forwardTo}`);
    const apiKey = args.values['api-key'] ?? context.config.CONNECTIVITY_KEY ?? (await devTestKey(context.config.DATA_DIR));
    if (!apiKey) throw new CliError('No API key: pass --api-key sk_test_..., set CONNECTIVITY_KEY, or run pnpm start (its dev key is used).');
    if (!apiKey.startsWith('sk_test_')) throw new CliError('listen streams test events: use a test key (sk_test_...).');
    const baseUrl = args.values['base-url'] ?? context.config.CONNECTIVITY_BASE_URL;
    if (!URL.canParse(baseUrl)) throw new CliError(`--base-url is not a URL: ${baseUrl}`);

    const listener = listen({
      baseUrl,
      apiKey,
      forwardTo,
      types: args.values.events,
      secret: args.values.secret ?? context.config.CONNECTIVITY_WEBHOOK_SECRET,
      print: (line) => out.log(line),
    });
    out.log(`Forwarding the test events of ${apiKey.slice(0, 12)}… from ${baseUrl} to ${forwardTo}${args.values.events ? ` (${args.values.events})` : ''}`);
    out.log(`Webhook signing secret: ${listener.secret}`);
    const stop = () => void listener.stop();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    context.signal?.addEventListener('abort', stop, { once: true });
    try {
      await listener.done;
    } catch (error) {
      if (error instanceof ListenError) throw new CliError(error.message);
      throw error;
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  },
};
