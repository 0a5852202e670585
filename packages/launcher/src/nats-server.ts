import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { waitUntilReady } from './wait-ready.ts';

export interface NatsServer {
  /** The client URL (loopback). */
  url: string;
  close(): Promise<void>;
}

/**
 * One nats-server with JetStream on a loopback port of its own, a storage folder of its own, and
 * `conf` (e.g. an `authorization` block) in its configuration: for a stack whose bus must ask for
 * credentials, which the machine's shared server does not. Resolves once it says it is healthy.
 */
export async function startNatsServer(conf: string, binary = 'nats-server'): Promise<NatsServer> {
  const port = await freePort();
  const monitor = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'nats-server-'));
  const file = path.join(dir, 'nats.conf');
  writeFileSync(
    file,
    [`listen: "127.0.0.1:${port}"`, `http: "127.0.0.1:${monitor}"`, `jetstream { store_dir: ${JSON.stringify(path.join(dir, 'js'))} }`, conf].join('\n'),
    {
      mode: 0o600,
    },
  );
  const child = spawn(binary, ['-c', file], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const failed = new Promise<never>((_, reject) => {
    child.once('error', (error) => reject(new Error(`could not start ${binary}: ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`nats-server exited with code ${String(code)} while starting`)));
  });
  failed.catch(() => undefined);
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([waitUntilReady(`http://127.0.0.1:${monitor}/healthz`, 30_000), failed]);
  } catch (error) {
    await close();
    throw error;
  }
  return { url: `nats://127.0.0.1:${port}`, close };
}
