import { CliError } from '../admin-client.ts';
import { readDevTestKey, usesDevKey } from '../api-client.ts';
import type { Command } from '../command.ts';
import { listen, ListenError } from './listen.ts';

/**
 * `pnpm cli listen --forward-to <url>`: the integrator's own test events, delivered to a local
 * receiver as signed webhooks, with no public URL needed. The key and address are those of every
 * integrator command: `--key`/`--url`, else CONNECTIVITY_API_KEY/CONNECTIVITY_API_URL, else the
 * dev key of a local `pnpm start`.
 */
export const LISTEN_COMMANDS: Record<string, Command> = {
  listen: {
    usage: 'listen --forward-to <url> [--events esim.*,api_key.*] [--key sk_test_...] [--url <api url>] [--secret whsec_...]',
    summary:
      'Stream the test events of a key (GET /v1/events/stream) and POST each to a local URL, signed like a webhook ' +
      '(Standard Webhooks) with a secret printed at start (new each run, or --secret / CONNECTIVITY_WEBHOOK_SECRET); ' +
      'reconnects with Last-Event-ID, so nothing is lost. Ctrl-C stops.',
    async run(ctx, args, out) {
      const forwardTo = args.values['forward-to'];
      if (!forwardTo) throw new CliError('--forward-to is required, e.g. --forward-to http://localhost:3000/hooks');
      if (!URL.canParse(forwardTo)) throw new CliError(`--forward-to is not a URL: ${forwardTo}`);
      const { key: apiKey, baseUrl } = await ctx.api();
      if (!apiKey.startsWith('sk_test_')) throw new CliError('listen streams test events: use a test key (sk_test_...).');
      if (!URL.canParse(baseUrl)) throw new CliError(`--url is not a URL: ${baseUrl}`);

      const listener = listen({
        baseUrl,
        apiKey,
        // With the dev key of a local `pnpm start`, a restart that made a new one is followed.
        ...(usesDevKey(ctx.config, args.values.key) && { renewKey: () => readDevTestKey(ctx.config) }),
        forwardTo,
        types: args.values.events,
        secret: args.values.secret ?? ctx.config.CONNECTIVITY_WEBHOOK_SECRET,
        print: (line) => out.log(line),
      });
      out.log(`Forwarding the test events of ${apiKey.slice(0, 12)}… from ${baseUrl} to ${forwardTo}${args.values.events ? ` (${args.values.events})` : ''}`);
      out.log(`Webhook signing secret: ${listener.secret}`);
      const stop = () => void listener.stop();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      ctx.signal?.addEventListener('abort', stop, { once: true });
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
  },
};
