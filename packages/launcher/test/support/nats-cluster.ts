import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/ports.ts';
import { waitUntilReady } from '../../src/wait-ready.ts';

export interface NatsNode {
  /** The server's name in the cluster (`n1`, `n2`, ...), as JetStream reports leaders. */
  name: string;
  clientUrl: string;
  monitorUrl: string;
  /** SIGKILL, as a crash or a lost machine. */
  kill(): Promise<void>;
  /** Starts a killed node again on its storage; resolves once it has caught up (healthy). */
  restart(): Promise<void>;
}

export interface StreamView {
  replicas: number;
  leader: string;
  peers: string[];
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every node's client URL, comma-separated: a NATS_URL. */
  url: string;
  /** Names of the client connections a node serves now (its monitoring `/connz`). */
  connectionNames(node: NatsNode): Promise<string[]>;
  /** A stream as a node sees it (its monitoring `/jsz`): configured replicas, leader, peers. */
  stream(node: NatsNode, name: string): Promise<StreamView | undefined>;
  close(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nats-server processes on this machine (the binary on PATH, or
 * NATS_SERVER), each with its own ports and storage folder, routed to each other. Resolves once
 * every node says it is healthy (for a clustered JetStream: in touch with the meta leader).
 */
export async function startNatsCluster(size = 3): Promise<NatsCluster> {
  const binary = process.env.NATS_SERVER ?? 'nats-server';
  const clusterName = `test-${process.pid}-${Date.now().toString(36)}`;
  const specs = [];
  for (let i = 1; i <= size; i += 1) specs.push({ name: `n${i}`, client: await freePort(), route: await freePort(), monitor: await freePort() });
  const routes = specs.map((spec) => `nats://127.0.0.1:${spec.route}`).join(',');
  const storage = mkdtempSync(path.join(tmpdir(), 'nats-cluster-'));
  const failures: Promise<never>[] = [];
  const children = new Set<ChildProcess>();

  const nodes: NatsNode[] = specs.map((spec) => {
    let child: ChildProcess;
    let exited: Promise<void>;
    // prettier-ignore
    const args = [
      '-a', '127.0.0.1', '-p', String(spec.client), '-n', spec.name, '-m', String(spec.monitor),
      '-js', '-sd', path.join(storage, spec.name),
      '--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${spec.route}`, '--routes', routes,
    ];
    const start = () => {
      child = spawn(binary, args, { stdio: 'ignore' });
      children.add(child);
      exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const failed = new Promise<never>((_, reject) => {
        child.once('error', (error) => reject(new Error(`could not start ${binary} (set NATS_SERVER to its path): ${error.message}`)));
        child.once('exit', (code) => reject(new Error(`nats-server ${spec.name} exited with code ${String(code)} while starting`)));
      });
      failed.catch(() => undefined);
      return failed;
    };
    failures.push(start());
    const monitorUrl = `http://127.0.0.1:${spec.monitor}`;
    return {
      name: spec.name,
      clientUrl: `nats://127.0.0.1:${spec.client}`,
      monitorUrl,
      async kill() {
        if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        if (child.pid !== undefined) await exited;
      },
      async restart() {
        await Promise.race([waitUntilReady(`${monitorUrl}/healthz`, 60_000), start()]);
      },
    };
  });

  const close = async () => {
    await Promise.all(nodes.map((node) => node.kill()));
    rmSync(storage, { recursive: true, force: true });
    process.off('exit', killOnExit);
  };
  // A test process that ends without closing (a hook that timed out) takes its servers with it.
  const killOnExit = () => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(storage, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);
  try {
    await Promise.race([Promise.all(nodes.map((node) => waitUntilReady(`${node.monitorUrl}/healthz`, 30_000))), ...failures]);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    nodes,
    url: nodes.map((node) => node.clientUrl).join(','),
    async connectionNames(node) {
      const response = await fetch(`${node.monitorUrl}/connz?limit=1000`, { signal: AbortSignal.timeout(5_000) });
      const body = (await response.json()) as { connections?: { name?: string }[] };
      return (body.connections ?? []).map((connection) => connection.name ?? '');
    },
    async stream(node, name) {
      const response = await fetch(`${node.monitorUrl}/jsz?streams=true&config=true`, { signal: AbortSignal.timeout(5_000) });
      const body = (await response.json()) as {
        account_details?: {
          stream_detail?: { name: string; config?: { num_replicas?: number }; cluster?: { leader?: string; replicas?: { name: string }[] } }[];
        }[];
      };
      const found = (body.account_details ?? []).flatMap((account) => account.stream_detail ?? []).find((stream) => stream.name === name);
      if (!found) return undefined;
      return {
        replicas: found.config?.num_replicas ?? 1,
        leader: found.cluster?.leader ?? '',
        peers: (found.cluster?.replicas ?? []).map((peer) => peer.name),
      };
    },
    close,
  };
}
