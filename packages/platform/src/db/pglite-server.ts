// Run in a worker thread by `createDatabase` for the embedded database: PGlite (Postgres in WASM)
// served over the wire protocol on a Unix socket. In its own thread the database's work (the
// WASM backend, its file writes, the protocol) runs beside the services' JavaScript on another
// core instead of taking turns with it
// (docs/decisions/0007-pglite-over-the-wire-protocol-in-its-own-thread.md).
//
// workerData: { directory?: string, template?: string, socketPath: string, conf: string[] } (no
// directory: in memory, loaded from the `template` tar of a fresh cluster if it exists, else made
// and then saved there: see pglite-template.ts). It serves on the Unix socket `socketPath`, whose folder only this user may enter:
// the embedded database takes no password, so no other user of the machine may reach it (on
// a loopback port any local process could). It posts { listening: true } once listening, or
// { error } if it could not start; the message 'close' stops the server, closes the database
// (its last writes flushed) and ends the thread.
import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { collectLastResort } from '../memory/idle-release.ts';
import { serveWire } from './pglite-wire.ts';

const { directory, template, socketPath, conf, maxConnections } = workerData as {
  directory?: string;
  template?: string;
  socketPath: string;
  conf: string[];
  maxConnections: number;
};
const port = parentPort;
if (!port) throw new Error('pglite-server.ts runs as a worker thread');

/** An in-memory database: the template's fresh cluster if it loads, else a new one, saved as the template. */
async function inMemory(options: { postgresqlconf: string[] }): Promise<PGlite> {
  if (template === undefined) return PGlite.create(options);
  const saved = await readFile(template).catch(() => undefined);
  if (saved) {
    try {
      return await PGlite.create({ ...options, loadDataDir: new Blob([saved]) });
    } catch {
      // A damaged template: made again below.
    }
  }
  const pglite = await PGlite.create(options);
  // Written aside and renamed into place, so a reader never sees half a file; two writers at once
  // each rename a complete one.
  const staging = `${template}.${randomBytes(6).toString('hex')}`;
  try {
    await writeFile(staging, Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer()), { mode: 0o600 });
    await rename(staging, template);
  } catch {
    await rm(staging, { force: true });
  }
  return pglite;
}

try {
  const options = { postgresqlconf: conf };
  const pglite = directory === undefined ? await inMemory(options) : await PGlite.create(directory, options);
  let server;
  try {
    server = await serveWire(pglite, socketPath, maxConnections);
  } catch (error) {
    await pglite.close();
    throw error;
  }
  port.on('message', (message: unknown) => {
    // The process went idle: this isolate gives back what the burst left too (record 0269).
    if (message === 'release-memory') collectLastResort();
    if (message !== 'close') return;
    void (async () => {
      await server.close();
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
