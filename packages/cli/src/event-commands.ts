import { json, need, type Command } from './command.ts';

/** `events resend`: one past event delivered again to the webhook endpoints of the key's environment. */
export const EVENT_COMMANDS: Record<string, Command> = {
  'events resend': {
    usage: 'events resend <evt_id> [--key sk_...] [--url <api url>] [--json]',
    summary: 'Deliver one event again (POST /v1/events/replay), same event id, fresh signature, to every endpoint it is enabled for.',
    async run(ctx, args, out) {
      const id = need(args, 2, 'event id');
      const { client, key } = await ctx.api();
      const replay = await client.events.replay({ event: id });
      if (args.values.json) return json(out, replay);
      // What the API did: the endpoints it queued the event for, and (test events) the open
      // event streams it sent it to, which is where `listen` hears it.
      const done = [
        replay.endpoints > 0 ? `queued for ${replay.endpoints} webhook endpoint(s)` : 'no enabled webhook endpoint of this environment takes it',
        ...(key.startsWith('sk_test_') ? ['sent to the open event streams (pnpm cli listen)'] : []),
      ];
      out.log(`Event ${id} replayed: ${done.join('; ')}.`);
    },
  },
};
