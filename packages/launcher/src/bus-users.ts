import { SUPPLIER_REPORTS_FILTER, type EVENT_TYPES } from '@connectivity/contracts';
import { KEY_CHANGES_SUBJECT } from '@connectivity/gateway';
import { SUPPLIER_REPORTS_DURABLE } from '@connectivity/inventory';
import { EVENTS_DURABLE, STREAM_NOTICE_SUBJECT } from '@connectivity/notifications';
import { natsPermissions, type BusNames, type BusRole, type NatsPermissions } from '@connectivity/platform';

/**
 * The families of events each deployable writes to its outbox (the first part of the type): the
 * gateway its keys', inventory everything of eSIMs and money. Every event type of the catalogue
 * belongs to exactly one (test/bus-users.test.ts).
 */
export const EVENT_FAMILIES: Record<string, readonly string[]> = {
  gateway: ['api_key'],
  inventory: ['esim', 'refund', 'balance'],
};

const eventsOf = (deployable: string) => (EVENT_FAMILIES[deployable] ?? []).map((family) => `events.*.${family}.>`);

/**
 * What each NATS user does on the bus, from the code: the subjects of the events its outbox
 * relay publishes, the notices it sends and hears, the durable consumers it reads with.
 * Catalogue publishes the reports of the vendors' callbacks, which inventory consumes
 * (docs/decisions/0262-supplier-callbacks-through-catalogue.md); the simulator uses the bus for
 * nothing but readiness. `migrate` makes the streams (docs/decisions/0220-nats-users-per-service.md).
 */
export const BUS_ROLES: Record<string, BusRole> = {
  migrate: { managesStreams: true },
  gateway: { publishes: eventsOf('gateway'), notices: [KEY_CHANGES_SUBJECT] },
  catalogue: { publishes: [SUPPLIER_REPORTS_FILTER] },
  inventory: { publishes: eventsOf('inventory'), consumes: [SUPPLIER_REPORTS_DURABLE] },
  'sandbox-simulator': {},
  notifications: { consumes: [EVENTS_DURABLE], notices: [STREAM_NOTICE_SUBJECT] },
};

/** The deployables and the migrations, in the order of BUS_ROLES: each a NATS user of its name. */
export const BUS_USERS = Object.keys(BUS_ROLES);

/** Every user's permissions for a deployment's names. */
export function busPermissions(names?: BusNames): Record<string, NatsPermissions> {
  return Object.fromEntries(BUS_USERS.map((user) => [user, natsPermissions(user, BUS_ROLES[user] ?? {}, names)]));
}

/** Event types by their family, to check that EVENT_FAMILIES covers the catalogue. */
export const eventFamilyOf = (type: (typeof EVENT_TYPES)[number]): string => type.split('.')[0] ?? '';
