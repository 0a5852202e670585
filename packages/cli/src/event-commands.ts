import { json, need, type Command } from './command.ts';

/** `events resend`: one past event delivered again to the webhook endpoints of the key's environment. */
export const EVENT_COMMANDS: Record<string, Command> = {
  'events resend': {
    usage: 'events resend <evt_id> [--key sk_...] [--url <api url>] [--json]',
    summary: 'Deliver one event again (POST /v1/events/replay), same event id, fresh signature, to every endpoint it is enabled for.',
    async run(ctx, args, out) {
      const id = need(args, 2, 'event id');
      const { client } = await ctx.api();
      const replay = await client.events.replay({ event: id });
      if (args.values.json) return json(out, replay);
      if (replay.queued === 0) return out.log(`Event ${id} was not queued.`);
      out.log(
        replay.endpoints === 0
          ? `Event ${id} found, but no enabled webhook endpoint of this environment takes it: nothing to deliver.`
          : `Event ${id} queued for delivery again to ${replay.endpoints} endpoint(s).`,
      );
    },
  },
};
