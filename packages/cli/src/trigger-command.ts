import { setTimeout as sleep } from 'node:timers/promises';
import { EVENT_TYPES, isEventType, type ApiEvent } from '@connectivity/contracts';
import { createApiClient } from './api-client.ts';
import { CliError } from './admin-client.ts';
import { json, need, type Command } from './command.ts';
import { TRIGGER_RECIPES } from './trigger/recipes.ts';
import type { Sandbox } from './trigger/sandbox.ts';

// Events pass through the outbox, the bus and the event store before GET /v1/events lists them.
const CONFIRM_TIMEOUT_MS = 20_000;

/** `trigger <event type>`: makes the sandbox emit one event of that type, with the integrator's test key. */
export const TRIGGER_COMMANDS: Record<string, Command> = {
  trigger: {
    usage: `trigger <${EVENT_TYPES.join('|')}> [--key sk_test_...] [--url <api url>] [--json]`,
    summary:
      'Make the sandbox emit an event: buys, moves or uses an eSIM, or issues, uses and revokes a throwaway test key (api_key.*, through the admin API; your key keeps working), ' +
      'printing each step, then waits until GET /v1/events lists the event.',
    async run(ctx, args, out) {
      const type = need(args, 1, 'event type');
      if (!isEventType(type)) throw new CliError(`Unknown event type "${type}"; one of: ${EVENT_TYPES.join(', ')}.`);
      const first = await ctx.api();
      if (!first.key.startsWith('sk_test_')) throw new CliError('trigger works in the sandbox only: use a test key (sk_test_...).');
      const recipe = TRIGGER_RECIPES[type];
      const sandbox: Sandbox = {
        api: first.client,
        key: first.key,
        out: args.values.json ? { log: () => undefined } : out,
        admin: () => ctx.admin(),
        withKey: (key) => createApiClient(first.baseUrl, key),
      };
      sandbox.out.log(`${type}: ${recipe.how}`);
      const matches = await recipe.run(sandbox);
      const event = await waitForEvent(sandbox, (e) => e.type === type && matches(e), ctx.signal);
      if (args.values.json) return json(out, { event });
      out.log(`emitted ${event.id} ${event.type} (${event.environment})`);
    },
  },
};

async function waitForEvent(sandbox: Sandbox, wanted: (event: ApiEvent) => boolean, signal: AbortSignal | undefined): Promise<ApiEvent> {
  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  for (;;) {
    const found = (await sandbox.api.events.list({ limit: 100 })).data.find(wanted);
    if (found) return found;
    if (Date.now() > deadline) throw new CliError(`The event was not listed by GET /v1/events within ${CONFIRM_TIMEOUT_MS / 1000} s.`);
    await sleep(200, undefined, { signal });
  }
}
