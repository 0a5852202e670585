import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface HotFunction {
  name: string;
  where: string;
  selfMs: number;
  /** Share of the busy (non-idle) time. */
  share: number;
}

/** A location short enough to read: the package path inside node_modules, or the path from the root. */
function shorten(url: string, root: string): string {
  let path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('/node_modules/');
  if (modules !== -1) path = path.slice(modules + '/node_modules/'.length);
  else if (path.startsWith(root)) path = path.slice(root.length);
  return path;
}

/** Who a location belongs to: an npm package (`@opentelemetry/*` together), node itself, or a folder of ours. */
function ownerOf(url: string, root: string): string {
  if (url === '') return '(native, gc, program)';
  if (url.startsWith('node:')) return 'node internals';
  const path = shorten(url, root);
  if (path.startsWith('/') || path.startsWith('wasm:')) return path.startsWith('wasm:') ? 'wasm' : 'other';
  const parts = path.split('/');
  if (url.includes('/node_modules/'))
    return parts[0]?.startsWith('@') ? (parts[0] === '@opentelemetry' ? '@opentelemetry/*' : `${parts[0]}/${parts[1]}`) : (parts[0] ?? '');
  return parts.slice(0, parts[0] === 'gateway' ? 1 : 2).join('/');
}

/** A span of time on the monotonic clock, in microseconds (`process.hrtime` and V8's profiler share it). */
export interface Window {
  from: number;
  to: number;
}

/** Now on the clock of the profiles' timestamps, in microseconds. */
export const profileClock = (): number => Number(process.hrtime.bigint() / 1000n);

/**
 * The functions with the most self time in one .cpuprofile, summed per function name and
 * location, counting only the samples taken inside `window` (so start-up and shutdown are left out).
 */
export function hotFunctions(
  profile: CpuProfile,
  root: string,
  window: Window = { from: 0, to: Number.POSITIVE_INFINITY },
  top = 15,
): { functions: HotFunction[]; owners: { owner: string; share: number }[]; busyMs: number; idleMs: number } {
  const selfUs = new Map<number, number>();
  if (profile.samples && profile.timeDeltas && profile.samples.length === profile.timeDeltas.length) {
    // Each delta is the time before its sample; the sample's node gets the time up to the next one.
    let at = profile.startTime;
    for (let i = 0; i < profile.samples.length; i += 1) {
      at += profile.timeDeltas[i] ?? 0;
      if (at < window.from || at > window.to) continue;
      const node = profile.samples[i] ?? 0;
      selfUs.set(node, (selfUs.get(node) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
    }
  } else {
    // No timestamps: the whole profile, by hit counts.
    const total = profile.nodes.reduce((sum, node) => sum + (node.hitCount ?? 0), 0);
    const perHit = total > 0 ? (profile.endTime - profile.startTime) / total : 0;
    for (const node of profile.nodes) selfUs.set(node.id, (node.hitCount ?? 0) * perHit);
  }
  const byFunction = new Map<string, { name: string; where: string; us: number }>();
  const byOwner = new Map<string, number>();
  let idleUs = 0;
  let busyUs = 0;
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const owner = ownerOf(url, root);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + us);
    const name = functionName || '(anonymous)';
    const where = url ? `${shorten(url, root)}:${lineNumber + 1}` : '';
    const key = `${name} ${where}`;
    const entry = byFunction.get(key) ?? { name, where, us: 0 };
    entry.us += us;
    byFunction.set(key, entry);
  }
  const functions = [...byFunction.values()]
    .filter((entry) => entry.us > 0)
    .sort((a, b) => b.us - a.us)
    .slice(0, top)
    .map((entry) => ({ name: entry.name, where: entry.where, selfMs: entry.us / 1000, share: busyUs > 0 ? entry.us / busyUs : 0 }));
  const owners = [...byOwner.entries()]
    .filter(([, us]) => us > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([owner, us]) => ({ owner, share: busyUs > 0 ? us / busyUs : 0 }));
  return { functions, owners, busyMs: busyUs / 1000, idleMs: idleUs / 1000 };
}

/** Every .cpuprofile written to `dir`, parsed. */
export async function readProfiles(dir: string): Promise<{ file: string; profile: CpuProfile }[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile')).sort();
  return Promise.all(files.map(async (file) => ({ file, profile: JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile })));
}
