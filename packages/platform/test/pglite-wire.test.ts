import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createDatabase } from '../src/db/create-database.ts';
import type { Database } from '../src/db/types.ts';

// The embedded database's own wire-protocol server (pglite-wire.ts), driven message by message
// the way no pooled `pg` client would, to show that connections sharing PGlite's one backend
// never see each other's half-done exchanges or transactions.
const SETUP_TIMEOUT = 180_000;

/** A bare PostgreSQL protocol client: it sends what it is told, when it is told. */
class WireClient {
  private received = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  private readonly socket: Socket;
  private constructor(socket: Socket) {
    this.socket = socket;
    socket.on('data', (data: Buffer) => {
      this.received = Buffer.concat([this.received, data]);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async open(socketPath: string): Promise<WireClient> {
    const socket = connect(socketPath);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const client = new WireClient(socket);
    const parameters = Buffer.from('user\0postgres\0database\0postgres\0\0');
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + parameters.length, 0);
    startup.writeInt32BE(196_608, 4);
    socket.write(Buffer.concat([startup, parameters]));
    await client.untilReady();
    return client;
  }

  private static message(type: string, body: Buffer): Buffer {
    const head = Buffer.alloc(5);
    head.write(type, 0);
    head.writeInt32BE(4 + body.length, 1);
    return Buffer.concat([head, body]);
  }

  /** Parse (of the statement `name`, unnamed by default) and Bind to the unnamed portal, with no Execute or Sync yet. */
  prepareUnnamed(sql: string, name = ''): void {
    const parse = WireClient.message('P', Buffer.concat([Buffer.from(`${name}\0${sql}\0`), Buffer.from([0, 0])]));
    const bind = WireClient.message('B', Buffer.concat([Buffer.from(`\0${name}\0`), Buffer.from([0, 0, 0, 0, 0, 0])]));
    this.socket.write(Buffer.concat([parse, bind]));
  }

  /** Bind of the prepared statement `name` to the unnamed portal, Execute and Sync. */
  async executePrepared(name: string): Promise<string[]> {
    this.socket.write(WireClient.message('B', Buffer.concat([Buffer.from(`\0${name}\0`), Buffer.from([0, 0, 0, 0, 0, 0])])));
    return this.executeUnnamed();
  }

  /** Execute of the unnamed portal and Sync: the rows' first column, as text. */
  async executeUnnamed(): Promise<string[]> {
    const execute = WireClient.message('E', Buffer.from([0, 0, 0, 0, 0]));
    this.socket.write(Buffer.concat([execute, WireClient.message('S', Buffer.alloc(0))]));
    return this.rows(await this.untilReady());
  }

  /** A simple query: the rows' first column, as text. */
  async query(sql: string): Promise<string[]> {
    this.socket.write(WireClient.message('Q', Buffer.from(`${sql}\0`)));
    return this.rows(await this.untilReady());
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Every message up to and including the next ReadyForQuery. */
  private async untilReady(): Promise<Buffer[]> {
    for (;;) {
      const messages: Buffer[] = [];
      let offset = 0;
      while (this.received.length - offset >= 5) {
        const length = 1 + this.received.readInt32BE(offset + 1);
        if (this.received.length - offset < length) break;
        const message = this.received.subarray(offset, offset + length);
        offset += length;
        messages.push(message);
        if (message[0] === 'Z'.charCodeAt(0)) {
          this.received = this.received.subarray(offset);
          const error = messages.find((m) => m[0] === 'E'.charCodeAt(0));
          if (error) throw new Error(`server error: ${error.toString('utf8', 5).replaceAll('\0', ' ')}`);
          return messages;
        }
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private rows(messages: Buffer[]): string[] {
    return messages
      .filter((message) => message[0] === 'D'.charCodeAt(0))
      .map((row) => {
        const length = row.readInt32BE(7);
        return row.toString('utf8', 11, 11 + length);
      });
  }
}

describe('the embedded database shared by several connections', () => {
  let db: Database;
  let socketPath: string;
  beforeAll(async () => {
    db = await createDatabase({ dataDir: 'memory://' });
    const { host, port } = (db.knex.client as { config: { connection: { host: string; port: number } } }).config.connection;
    socketPath = path.join(host, `.s.PGSQL.${port}`);
    await db.knex.raw('create table wire_items (id int primary key)');
  }, SETUP_TIMEOUT);
  afterAll(() => db?.close());

  /** Two bare clients of the database, closed after `run`. */
  async function withTwoClients(run: (first: WireClient, second: WireClient) => Promise<void>): Promise<void> {
    const [first, second] = await Promise.all([WireClient.open(socketPath), WireClient.open(socketPath)]);
    try {
      await run(first, second);
    } finally {
      first.destroy();
      second.destroy();
    }
  }

  test('a connection in the middle of an extended-protocol exchange keeps the backend until its Sync', () =>
    withTwoClients(async (first, second) => {
      first.prepareUnnamed("select 'first'");
      // Sent while the first connection's unnamed statement and portal wait for their Execute:
      // run in between, its Parse would replace them.
      const secondAnswer = (async () => {
        second.prepareUnnamed("select 'second'");
        return second.executeUnnamed();
      })();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await first.executeUnnamed()).toEqual(['first']);
      expect(await secondAnswer).toEqual(['second']);
    }));

  test('each connection has prepared statements of its own: two may use the same name', () =>
    withTwoClients(async (first, second) => {
      first.prepareUnnamed("select 'first'", 'shared_name');
      expect(await first.executeUnnamed()).toEqual(['first']);
      // On one session this Parse would fail: prepared statement "shared_name" already exists.
      second.prepareUnnamed("select 'second'", 'shared_name');
      expect(await second.executeUnnamed()).toEqual(['second']);
      expect(await first.executePrepared('shared_name')).toEqual(['first']);
      expect(await second.executePrepared('shared_name')).toEqual(['second']);
    }));

  test("another connection's statements wait for a transaction to end, and never run inside it", () =>
    withTwoClients(async (holder, other) => {
      await holder.query('begin');
      await holder.query('insert into wire_items values (1)');
      let answered = false;
      const count = other.query('select count(*) from wire_items').finally(() => {
        answered = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(answered).toBe(false);
      await holder.query('rollback');
      expect(await count).toEqual(['0']);
    }));

  test('a client gone in the middle of a transaction or an exchange leaves the backend idle for the others', async () => {
    const inTransaction = await WireClient.open(socketPath);
    await inTransaction.query('begin');
    await inTransaction.query('insert into wire_items values (2)');
    inTransaction.destroy();
    const midExchange = await WireClient.open(socketPath);
    midExchange.prepareUnnamed('select 1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    midExchange.destroy();

    const { rows } = await db.knex.raw<{ rows: { n: number }[] }>('select count(*)::int as n from wire_items');
    expect(rows).toEqual([{ n: 0 }]);
    await db.knex.transaction(async (trx) => {
      await trx.raw('insert into wire_items values (3)');
    });
    const after = await db.knex.raw<{ rows: { id: number }[] }>('select id from wire_items');
    expect(after.rows).toEqual([{ id: 3 }]);
  });

  test("the pool's connections answer concurrent statements and transactions, each in its own", async () => {
    await db.knex.raw('truncate wire_items');
    await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        index % 3 === 0
          ? db.knex
              .transaction(async (trx) => {
                await trx.raw('insert into wire_items values (?)', [100 + index]);
                const { rows } = await trx.raw<{ rows: { id: number }[] }>('select id from wire_items where id = ?', [100 + index]);
                expect(rows).toEqual([{ id: 100 + index }]);
                if (index % 2 === 0) throw new Error('rolled back');
              })
              .catch((error: unknown) => {
                if (!(error instanceof Error && error.message === 'rolled back')) throw error;
              })
          : db.knex.raw('insert into wire_items values (?)', [100 + index]),
      ),
    );
    const { rows } = await db.knex.raw<{ rows: { n: number }[] }>('select count(*)::int as n from wire_items');
    // 20 single inserts, and 5 of the 10 transactions committed.
    expect(rows).toEqual([{ n: 25 }]);
  });
});
