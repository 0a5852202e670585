// The embedded database's wire-protocol server, run in PGlite's worker thread (pglite-server.ts).
// PGlite is one backend; this lets several client connections share it safely and cheaply
// (docs/decisions/0275-embedded-database-serves-several-connections.md):
// - a connection holds the backend from its first message until the backend is idle again (a
//   Sync or a simple query answered outside a transaction block), so no other connection's
//   message lands inside its extended-protocol sequence or its transaction;
// - everything a connection has sent that is complete goes to PGlite in one call and its answer
//   back in one write, instead of a call, a file-system sync and a write per message;
// - each connection's prepared statements and portals are its own, as in a PostgreSQL session:
//   their names are prefixed with the connection's on the way in, so two clients (a library's
//   `pg` statements, say) may use the same name.
import { createServer, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const SYNC = 0x53;
const QUERY = 0x51;
const TERMINATE = 0x58;
const PARSE = 0x50;
const BIND = 0x42;
const DESCRIBE = 0x44;
const CLOSE = 0x43;
const EXECUTE = 0x45;
const SYNC_MESSAGE = Buffer.from([SYNC, 0, 0, 0, 4]);

class Connection {
  /** Bytes received and not yet split into complete messages. */
  buffer: Buffer = Buffer.alloc(0);
  started = false;
  /** The startup message, run alone (PGlite takes a buffer that starts with one as nothing else). */
  startup: Buffer | undefined;
  /** Complete messages not yet given to the database, and the type of the last one. */
  pending: Buffer[] = [];
  lastType = 0;
  /** Whether what the database was last given ended an exchange (a Sync or a simple query). */
  ended = true;
  closed = false;
  readonly socket: Socket;
  /** Put before the names of this connection's prepared statements and portals. */
  readonly prefix: Buffer;
  constructor(socket: Socket, id: number) {
    this.socket = socket;
    this.prefix = Buffer.from(`c${id}.`);
  }

  /** Whether it has messages for the database. */
  hasWork(): boolean {
    return this.pending.length > 0 || this.startup !== undefined;
  }
}

/**
 * The message with its statement and portal names prefixed, or undefined when it names none (the
 * unnamed statement and portal are shared, and safe: a connection holds the backend from Parse to
 * Sync). Names are C strings: in Parse and Execute first; in Bind the portal's then the statement's;
 * in Describe and Close after the byte saying which.
 */
function renamed(message: Buffer, prefix: Buffer): Buffer | undefined {
  const type = message[0];
  let names: number[];
  if (type === PARSE || type === EXECUTE) names = [5];
  else if (type === BIND) names = [5, message.indexOf(0, 5) + 1];
  else if (type === DESCRIBE || type === CLOSE) names = [6];
  else return undefined;
  names = names.filter((at) => at > 0 && message[at] !== 0);
  if (names.length === 0) return undefined;
  const parts: Buffer[] = [];
  let from = 0;
  for (const at of names) {
    parts.push(message.subarray(from, at), prefix);
    from = at;
  }
  parts.push(message.subarray(from));
  const out = Buffer.concat(parts);
  out.writeInt32BE(out.length - 1, 1);
  return out;
}

export interface WireServer {
  close(): Promise<void>;
}

export async function serveWire(db: PGlite, socketPath: string, maxConnections: number): Promise<WireServer> {
  const connections = new Set<Connection>();
  const waiting: Connection[] = [];
  // The connection the backend is in the middle of an exchange or a transaction with.
  let owner: Connection | undefined;
  let running = false;
  let nextId = 0;

  const schedule = (connection: Connection) => {
    if (!waiting.includes(connection)) waiting.push(connection);
    void run();
  };

  async function run(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (;;) {
        if (owner?.closed) {
          await reset(owner);
          owner = undefined;
          continue;
        }
        let next = owner;
        if (next === undefined) {
          next = waiting.shift();
          if (next === undefined) break;
        } else if (!next.hasWork()) break;
        if (next.closed || !next.hasWork()) continue;
        await execute(next);
      }
    } finally {
      running = false;
    }
  }

  async function execute(connection: Connection): Promise<void> {
    const isStartup = connection.startup !== undefined;
    const chunk = connection.startup ?? (connection.pending.length === 1 ? connection.pending[0]! : Buffer.concat(connection.pending));
    if (isStartup) connection.startup = undefined;
    else connection.pending = [];
    const answer: Buffer[] = [];
    try {
      await db.runExclusive(() => db.execProtocolRawStream(chunk, { onRawData: (data) => answer.push(Buffer.from(data)) }));
    } catch {
      // The backend failed the message outright (not an error answer): this client cannot go on.
      connection.ended = false;
      connection.closed = true;
      connection.socket.destroy();
      owner = connection;
      return;
    }
    connection.ended = isStartup || connection.lastType === SYNC || connection.lastType === QUERY;
    owner = connection.ended && !db.isInTransaction() ? undefined : connection;
    if (answer.length > 0 && connection.socket.writable) connection.socket.write(answer.length === 1 ? answer[0]! : Buffer.concat(answer));
    if (connection.pending.length > 0 && owner === undefined) schedule(connection);
  }

  /** A client gone in the middle of an exchange or a transaction: the backend is made idle for the others. */
  async function reset(connection: Connection): Promise<void> {
    try {
      if (!connection.ended) await db.runExclusive(() => db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: () => {} }));
      if (db.isInTransaction()) await db.exec('rollback');
    } catch {
      // Nothing more can be done for a backend that fails a Sync; the next client sees its state.
    }
  }

  function receive(connection: Connection, data: Buffer): void {
    const buffer = connection.buffer.length === 0 ? data : Buffer.concat([connection.buffer, data]);
    let start = 0;
    let offset = 0;
    const flush = () => {
      if (offset > start) connection.pending.push(buffer.subarray(start, offset));
      start = offset;
    };
    while (!connection.closed) {
      if (!connection.started) {
        if (buffer.length - offset < 8) break;
        const length = buffer.readInt32BE(offset);
        const code = buffer.readInt32BE(offset + 4);
        if (length < 8 || buffer.length - offset < length) break;
        if (length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
          connection.socket.write('N');
        } else if (length === 16 && code === CANCEL_REQUEST) {
          // Cancelling is not supported: the connection that asked is closed, as PostgreSQL does.
          connection.socket.end();
        } else {
          connection.startup = Buffer.from(buffer.subarray(offset, offset + length));
          connection.started = true;
        }
        offset += length;
        start = offset;
        continue;
      }
      if (buffer.length - offset < 5) break;
      const type = buffer[offset]!;
      const length = 1 + buffer.readInt32BE(offset + 1);
      if (length < 5 || buffer.length - offset < length) break;
      if (type === TERMINATE) {
        flush();
        connection.socket.end();
        offset += length;
        start = offset;
        break;
      }
      const message = renamed(buffer.subarray(offset, offset + length), connection.prefix);
      if (message !== undefined) {
        flush();
        connection.pending.push(message);
        start = offset + length;
      }
      offset += length;
      connection.lastType = type;
    }
    flush();
    connection.buffer = buffer.subarray(offset);
    if (connection.hasWork()) schedule(connection);
  }

  const server = createServer((socket) => {
    if (connections.size >= maxConnections) {
      socket.end();
      return;
    }
    socket.setNoDelay(true);
    nextId += 1;
    const connection = new Connection(socket, nextId);
    connections.add(connection);
    socket.on('data', (data: Buffer) => receive(connection, data));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      connections.delete(connection);
      connection.closed = true;
      connection.pending = [];
      connection.startup = undefined;
      if (owner === connection) void run();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    async close() {
      for (const connection of connections) connection.socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      while (running) await new Promise((resolve) => setImmediate(resolve));
    },
  };
}
