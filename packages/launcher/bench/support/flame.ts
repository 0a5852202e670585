import type { Window } from './cpu-profile.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

const frameName = (node: Node, root: string) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url
    .replace(/^file:\/\//, '')
    .replace(root, '')
    .replace(/^.*\/node_modules\//, '');
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`.replaceAll(';', ',');
};

/**
 * The profile as folded stacks (`root;caller;callee microseconds`, one line a stack), the input of
 * every flame-graph renderer (Brendan Gregg's flamegraph.pl, speedscope, inferno), counting only
 * the samples inside `window`; idle time left out.
 */
export function foldedStacks(profile: Profile, root: string, window: Window): string {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i += 1) {
    at += deltas[i] ?? 0;
    if (at < window.from || at > window.to) continue;
    const id = samples[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i + 1] ?? 0));
  }
  const stacks = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === '(idle)' || us <= 0) continue;
    const frames: string[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at);
      if (frame && frame.callFrame.functionName !== '(root)') frames.push(frameName(frame, root));
    }
    const stack = frames.reverse().join(';');
    stacks.set(stack, (stacks.get(stack) ?? 0) + us);
  }
  return [...stacks.entries()].map(([stack, us]) => `${stack} ${Math.round(us)}`).join('\n') + '\n';
}

/**
 * Where the time of one function (by name) comes from: its callers `depth` frames up, summed,
 * most first. For the hot functions the bench lists, so "writev 8 %" says whose writes they are.
 */
export function callersOf(folded: string, functionName: string, depth = 4, top = 5): { chain: string; us: number }[] {
  const chains = new Map<string, number>();
  for (const line of folded.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space <= 0) continue;
    const frames = line.slice(0, space).split(';');
    const us = Number(line.slice(space + 1));
    const at = frames.findLastIndex((frame) => frame.split(' ')[0] === functionName);
    if (at < 0) continue;
    const chain = frames
      .slice(Math.max(0, at - depth), at)
      .reverse()
      .map((frame) => frame.split(' ')[0] + (frame.includes(' ') ? ` (${frame.split(' ')[1]?.split('/').slice(-2).join('/')})` : ''))
      .join(' ← ');
    chains.set(chain, (chains.get(chain) ?? 0) + us);
  }
  return [...chains.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([chain, us]) => ({ chain, us }));
}
