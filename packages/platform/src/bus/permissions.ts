/**
 * The NATS permissions a process needs for what it does on the JetStream bus, and nothing more
 * (docs/decisions/0221-the-smallest-jetstream-permissions.md). Each NATS user is given exactly the
 * subjects this builds: its own events, its own notices, its own durable consumer's API, its own
 * inbox. What it does not name is refused by the server (publish and subscribe alike).
 */
import { inboxPrefixOf } from './jetstream-setup.ts';
import { deadLetterSubject } from './types.ts';

/** What one deployable does on the bus, in the bus's relative subjects. */
export interface BusRole {
  /** Event subjects it publishes (wildcards allowed), e.g. `events.*.esim.>`. */
  publishes?: readonly string[];
  /** Notice subjects it both sends and hears (`Bus.notify` / `Bus.listen`). */
  notices?: readonly string[];
  /** Durable consumers it reads the event stream with (their names without the durable prefix). */
  consumes?: readonly string[];
  /** It creates the streams and brings them up to date (the deployment's migrations, not a service). */
  managesStreams?: boolean;
}

/** The names a deployment uses on NATS (the NATS_STREAM, NATS_SUBJECT_PREFIX and NATS_DURABLE_PREFIX settings). */
export interface BusNames {
  stream: string;
  subjectPrefix: string;
  durablePrefix: string;
}

export interface NatsPermissions {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
}

export const DEFAULT_BUS_NAMES: BusNames = { stream: 'EVENTS', subjectPrefix: '', durablePrefix: '' };

/**
 * The permissions of the NATS user a process connects as, named `connectionName` (its service:
 * its inbox is `_INBOX.<connectionName>`). Every user may read the account's JetStream limits and the two streams' info
 * (the bus checks both at connect, and /readyz asks the limits); beyond that:
 *
 * - publishing an event: its subjects (JetStream's ack comes back to the inbox);
 * - a notice: its subject, both ways (core NATS, nothing stored);
 * - a durable consumer: creating and updating that one consumer (every form the servers since
 *   2.9 take: with or without the filter in the subject, or the older durable-create), reading its
 *   info, pulling from it, acknowledging its messages, and dead-lettering them under
 *   `dead.<durable>.`;
 * - the streams: creating and updating the two streams, for the migrations alone.
 *
 * Deleting or purging a stream or a consumer, reading a stream's messages directly, another
 * consumer's API: named nowhere, so refused.
 */
export function natsPermissions(connectionName: string, role: BusRole, names: BusNames = DEFAULT_BUS_NAMES): NatsPermissions {
  const { stream, subjectPrefix: p, durablePrefix } = names;
  const streams = [stream, `${stream}_DEAD`];
  const publish = ['$JS.API.INFO', ...streams.map((s) => `$JS.API.STREAM.INFO.${s}`)];
  const subscribe = [`${inboxPrefixOf(connectionName)}.>`];
  for (const subject of role.publishes ?? []) publish.push(`${p}${subject}`);
  for (const subject of role.notices ?? []) {
    publish.push(`${p}${subject}`);
    subscribe.push(`${p}${subject}`);
  }
  for (const durable of role.consumes ?? []) {
    const consumer = `${stream}.${durablePrefix}${durable}`;
    publish.push(
      `$JS.API.CONSUMER.CREATE.${consumer}`,
      `$JS.API.CONSUMER.CREATE.${consumer}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${consumer}`,
      `$JS.API.CONSUMER.INFO.${consumer}`,
      `$JS.API.CONSUMER.MSG.NEXT.${consumer}`,
      `$JS.ACK.${consumer}.>`,
      `${p}${deadLetterSubject(durable, '>')}`,
    );
  }
  if (role.managesStreams) for (const s of streams) publish.push(`$JS.API.STREAM.CREATE.${s}`, `$JS.API.STREAM.UPDATE.${s}`);
  return { publish: { allow: publish }, subscribe: { allow: subscribe } };
}
