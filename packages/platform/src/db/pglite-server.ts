// Run in a worker thread by `createDatabase` for the embedded database: PGlite (Postgres in WASM)
// served over the wire protocol on a Unix socket. In its own thread the database's work (the
// WASM backend, its file writes, the protocol) runs beside the services' JavaScript on another
// core instead of taking turns with it
// (docs/decisions/0007-pglite-over-the-wire-protocol-in-its-own-thread.md).
//
// workerData: { directory?: string, socketPath: string, conf: string[] } (no directory: in
// memory). It serves on the Unix socket `socketPath`, whose folder only this user may enter:
// the embedded database takes no password, so no other user of the machine may reach it (on
// a loopback port any local process could). It posts { listening: true } once listening, or
// { error } if it could not start; the message 'close' stops the server, closes the database
// (its last writes flushed) and ends the thread.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const { directory, socketPath, conf } = workerData as { directory?: string; socketPath: string; conf: string[] };
const port = parentPort;
if (!port) throw new Error('pglite-server.ts runs as a worker thread');

try {
  const options = { postgresqlconf: conf };
  const pglite = directory === undefined ? await PGlite.create(options) : await PGlite.create(directory, options);
  // The client's pool holds one connection; a little slack so a reconnect is not refused while
  // the previous socket is still being torn down.
  const server = new PGLiteSocketServer({ db: pglite, path: socketPath, maxConnections: 4 });
  try {
    await server.start();
  } catch (error) {
    await pglite.close();
    throw error;
  }
  port.on('message', (message: unknown) => {
    if (message !== 'close') return;
    void (async () => {
      await server.stop();
      await pglite.close();
      port.postMessage({ closed: true });
      port.close();
    })();
  });
  port.postMessage({ listening: true });
} catch (error) {
  port.postMessage({ error: error instanceof Error ? error.message : String(error) });
  port.close();
}
