import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { EVENT_SUBJECT_FILTERS, EVENT_TYPES, SUPPLIER_REPORTS_FILTER } from '@connectivity/contracts';
import { createJetStreamBus, type Bus, type BusMessage } from '@connectivity/platform';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BUS_ROLES, BUS_USERS, EVENT_FAMILIES, eventFamilyOf } from '../src/bus-users.ts';
import { authorizationConf, deployedAuthorizationConf } from '../src/nats-conf.ts';
import { startNatsServer, type NatsServer } from '../src/nats-server.ts';
import { connectAs, publishRefused, subscribeRefused } from './support/nats-probe.ts';

/**
 * The NATS users of the deployment (src/bus-users.ts, docs/decisions/0220 and 0221), on a real
 * nats-server of the test's own: each service can do its work on the bus and nothing else; a
 * client without credentials gets nothing at all.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const binary = process.env.NATS_SERVER ?? 'nats-server';
const requireTools = process.env.CI_REQUIRE_DEPLOY_TOOLS === '1';
const hasNatsServer = requireTools || spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 }).status === 0;

const until = async (check: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

describe('the NATS users, from the code', () => {
  test('every event type of the catalogue is published by exactly one deployable, the one whose outbox writes it', () => {
    const owners = EVENT_TYPES.map((type) => [type, Object.keys(EVENT_FAMILIES).filter((d) => EVENT_FAMILIES[d]?.includes(eventFamilyOf(type)))]);
    expect(owners.filter(([, found]) => found?.length !== 1)).toEqual([]);
    const publishers = BUS_USERS.filter((user) => (BUS_ROLES[user]?.publishes ?? []).length > 0);
    expect(publishers.sort()).toEqual(['catalogue', 'gateway', 'inventory']);
    // Catalogue publishes no event: the reports of the vendors' callbacks alone, for inventory (record 0262).
    expect(BUS_ROLES.catalogue?.publishes).toEqual([SUPPLIER_REPORTS_FILTER]);
  });

  test('deploy/nats/users.conf is what src/bus-users.ts makes (run `node packages/launcher/src/nats-conf.ts > deploy/nats/users.conf`)', () => {
    expect(readFileSync(path.join(root, 'deploy/nats/users.conf'), 'utf8')).toBe(deployedAuthorizationConf());
  });
});

describe.skipIf(!hasNatsServer)('the NATS users on a server of their own', () => {
  const passwords = Object.fromEntries(BUS_USERS.map((user) => [user, randomBytes(32).toString('hex')]));
  let server: NatsServer;
  const connections: NatsConnection[] = [];
  const buses: Bus[] = [];
  const as = async (user: string) => {
    const nc = await connectAs(server.url, { name: user, password: passwords[user] ?? '' });
    connections.push(nc);
    return nc;
  };
  const busOf = async (user: string) => {
    const bus = await createJetStreamBus({ url: server.url, name: user, credentials: { user, password: passwords[user] } });
    buses.push(bus);
    return bus;
  };

  beforeAll(async () => {
    server = await startNatsServer(
      authorizationConf((user) => JSON.stringify(passwords[user])),
      binary,
    );
  });
  afterAll(async () => {
    for (const bus of buses) await bus.close();
    for (const nc of connections) await nc.close();
    await server?.close();
  });

  test('a client without credentials, or with a wrong password, is not let in: it can neither publish nor subscribe', async () => {
    await expect(connectAs(server.url)).rejects.toThrow(/Authorization Violation/);
    await expect(connectAs(server.url, { name: 'inventory', password: randomBytes(32).toString('hex') })).rejects.toThrow(/Authorization Violation/);
  });

  test('each does its work: the migrations make the streams; inventory and the gateway publish, notifications consumes and dead-letters; notices go both ways', async () => {
    // A service whose user may only read the streams cannot start before the migrations made them.
    await expect(busOf('catalogue')).rejects.toThrow(/Permissions Violation|stream not found/i);
    await (await busOf('migrate')).close();
    const [inventory, gateway, notifications, catalogue] = await Promise.all(['inventory', 'gateway', 'notifications', 'catalogue'].map(busOf));
    await catalogue?.ping();

    const received: BusMessage[] = [];
    await notifications?.subscribe({ durable: 'notifications', filterSubjects: [...EVENT_SUBJECT_FILTERS], maxDeliver: 1 }, async (msg) => {
      received.push(msg);
      if (msg.id === 'evt_poison') throw new Error('unstorable');
      await Promise.resolve();
    });
    await inventory?.publish({ id: 'evt_esim', subject: 'events.live.esim.activated', payload: { a: 1 } });
    await inventory?.publish({ id: 'evt_refund', subject: 'events.live.refund.created', payload: {} });
    await inventory?.publish({ id: 'evt_poison', subject: 'events.test.balance.low', payload: {} });
    await gateway?.publish({ id: 'evt_key', subject: 'events.test.api_key.issued', payload: {} });
    // Catalogue hands a callback's reports to inventory, which reads them with its own durable consumer.
    const reports: BusMessage[] = [];
    await inventory?.subscribe({ durable: 'supplier-reports', filterSubjects: [SUPPLIER_REPORTS_FILTER], maxDeliver: 1 }, async (msg) => {
      reports.push(msg);
      await Promise.resolve();
    });
    await catalogue?.publish({ id: 'callback_1', subject: 'events.live.supplier_report.esim-go', payload: { reports: [] } });
    await until(() => received.length === 4 && reports.length === 1);
    expect(received.map((m) => m.id).sort()).toEqual(['evt_esim', 'evt_key', 'evt_poison', 'evt_refund']);
    expect(reports.map((m) => m.id)).toEqual(['callback_1']);

    const heard: unknown[] = [];
    await gateway?.listen('control.gateway.keys', (notice) => heard.push(notice));
    await notifications?.listen('control.notifications.stream', (notice) => heard.push(notice));
    await gateway?.notify('control.gateway.keys', { key: 1 });
    await notifications?.notify('control.notifications.stream', { stream: 1 });
    await until(() => heard.length === 2);

    // The poison message went to the dead letters: notifications may publish there.
    const jsm = await jetstreamManager(await as('migrate'));
    expect((await jsm.streams.info('EVENTS_DEAD')).state.messages).toBe(1);
  });

  test("no one publishes another's events or notices, reads the event stream or another's replies, or manages what it does not own", async () => {
    const wrong: string[] = [];
    const check = async (user: string, what: string, refused: Promise<boolean>, expected: boolean) => {
      if ((await refused) !== expected) wrong.push(`${user}: ${what} is ${expected ? 'allowed' : 'refused'}`);
    };
    for (const user of BUS_USERS) {
      const nc = await as(user);
      for (const [owner, families] of Object.entries(EVENT_FAMILIES)) {
        for (const family of families) await check(user, `publish ${family} events`, publishRefused(nc, `events.test.${family}.forged`), user !== owner);
      }
      await check(user, 'publish supplier reports', publishRefused(nc, 'events.live.supplier_report.forged'), user !== 'catalogue');
      await check(user, 'pull supplier reports', publishRefused(nc, '$JS.API.CONSUMER.MSG.NEXT.EVENTS.supplier-reports'), user !== 'inventory');
      await check(
        user,
        'publish a dead letter of notifications',
        publishRefused(nc, 'dead.notifications.events.test.esim.activated'),
        user !== 'notifications',
      );
      for (const [owner, subject] of [
        ['gateway', 'control.gateway.keys'],
        ['notifications', 'control.notifications.stream'],
      ] as const) {
        await check(user, `publish ${subject}`, publishRefused(nc, subject), user !== owner);
        await check(user, `hear ${subject}`, subscribeRefused(nc, subject), user !== owner);
      }
      // Events are read only through notifications' durable consumer, never by a plain subscription.
      for (const subject of ['events.>', 'dead.>', '>', '_INBOX.>', '$JS.ACK.>'])
        await check(user, `subscribe ${subject}`, subscribeRefused(nc, subject), true);
      for (const other of BUS_USERS.filter((u) => u !== user)) await check(user, `read ${other}'s replies`, subscribeRefused(nc, `_INBOX.${other}.>`), true);
      await check(user, 'read its own replies', subscribeRefused(nc, `_INBOX.${user}.>`), false);
      for (const stream of ['EVENTS', 'EVENTS_DEAD']) {
        await check(user, `create ${stream}`, publishRefused(nc, `$JS.API.STREAM.CREATE.${stream}`), user !== 'migrate');
        await check(user, `update ${stream}`, publishRefused(nc, `$JS.API.STREAM.UPDATE.${stream}`), user !== 'migrate');
        for (const api of ['DELETE', 'PURGE', 'MSG.GET', 'MSG.DELETE', 'SNAPSHOT']) {
          await check(user, `${api} ${stream}`, publishRefused(nc, `$JS.API.STREAM.${api}.${stream}`), true);
        }
        await check(user, `direct get ${stream}`, publishRefused(nc, `$JS.API.DIRECT.GET.${stream}`), true);
      }
      for (const api of ['CREATE.EVENTS.spy', 'CREATE.EVENTS.spy.events.>', 'DURABLE.CREATE.EVENTS.spy', 'DELETE.EVENTS.notifications', 'LIST.EVENTS']) {
        await check(user, `consumer ${api}`, publishRefused(nc, `$JS.API.CONSUMER.${api}`), true);
      }
      await check(user, 'pull from notifications', publishRefused(nc, '$JS.API.CONSUMER.MSG.NEXT.EVENTS.notifications'), user !== 'notifications');
      await check(user, "ack notifications' messages", publishRefused(nc, '$JS.ACK.EVENTS.notifications.1.1.1.1.0'), user !== 'notifications');
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
