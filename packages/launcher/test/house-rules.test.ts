import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { SERVICES } from '@connectivity/contracts';
import { describe, expect, it } from 'vitest';
import { allServices } from '../src/services.ts';

/**
 * The rules of the house that a reader relies on and a test can check: what CONTRIBUTING.md says
 * of the repository is true of it, the deployment files and the contracts name every service of
 * the launcher's list (and the platform none), the source cites only files inside the repository,
 * and no source file of a deployable or the platform outgrows a reader.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const directories = (dir: string) =>
  readdirSync(path.join(root, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);

/** Every file under `dir` (relative to the root) whose name passes `keep`, outside node_modules. */
function files(dir: string, keep: (name: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const child = path.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (keep(entry.name)) found.push(child);
    }
  };
  walk(dir);
  return found;
}

const deployableDirs = ['gateway', ...directories('services').map((name) => `services/${name}`)];
const packageNames = directories('packages');
const services = allServices.map((service) => service.name).sort();
const sourceDirs = [...deployableDirs, ...packageNames.map((name) => `packages/${name}`)];
const typescript = sourceDirs.flatMap((dir) => files(dir, (name) => name.endsWith('.ts')));

describe('CONTRIBUTING.md', () => {
  const contributing = read('CONTRIBUTING.md');
  const counted = /^(\w+) deployables \(the gateway and (\w+) services\) and (\w+) packages\./m.exec(contributing);
  const numbers: Record<string, number> = { four: 4, five: 5, six: 6, seven: 7, eight: 8 };

  it('counts the deployables and the packages there are', () => {
    expect(counted, 'the opening sentence counts deployables and packages').not.toBeNull();
    const [, deployables, backends, packages] = counted!;
    expect(numbers[deployables!.toLowerCase()]).toBe(deployableDirs.length);
    expect(numbers[backends!]).toBe(deployableDirs.length - 1);
    expect(numbers[packages!]).toBe(packageNames.length);
  });

  it('names every package in its list of packages', () => {
    const paragraph = contributing.slice(contributing.indexOf('Packages: '), contributing.indexOf('## Habits'));
    for (const name of packageNames) expect(paragraph, `package ${name}`).toContain(`\`${name}\``);
  });

  it('names test files as it says: <subject>[.<scenario>].test.ts, in lowercase kebab case', () => {
    const tests = typescript.filter((file) => file.endsWith('.test.ts'));
    expect(tests.length).toBeGreaterThan(100);
    const misnamed = tests.filter((file) => !/^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)?\.test\.ts$/.test(path.basename(file)));
    expect(misnamed).toEqual([]);
  });
});

describe('the list of services', () => {
  it('is the deployables on disk', () => {
    expect(deployableDirs.map((dir) => path.basename(dir)).sort()).toEqual(services);
  });

  it.each([
    ['docker-compose.yml', (name: string) => new RegExp(`^  ${name}:$`, 'm')],
    ['deploy/ci/compose.yml', (name: string) => new RegExp(`^  ${name}:$`, 'm')],
    ['deploy/kubernetes/base/kustomization.yaml', (name: string) => new RegExp(`^  - ${name}\\.yaml$`, 'm')],
    ['deploy/kubernetes/base/network-policies.yaml', (name: string) => new RegExp(`app\\.kubernetes\\.io/name: ${name}$`, 'm')],
    ['deploy/nats/users.conf', (name: string) => new RegExp(`user: "${name}"`)],
    ['deploy/prometheus/prometheus.yml', (name: string) => new RegExp(`job_name: ${name}$`, 'm')],
    ['deploy/Dockerfile', (name: string) => new RegExp(`\\b${name}\\b`)],
  ])('is named in full by %s', (file, pattern) => {
    const text = read(file);
    const missing = services.filter((name) => !pattern(name).test(text));
    expect(missing).toEqual([]);
  });

  it("is the services the contract's routes may belong to", () => {
    expect([...SERVICES].sort()).toEqual(services);
  });

  it('is named nowhere in the platform, which takes a service by its name (a string)', () => {
    const quoted = new RegExp(`'(${services.join('|')})'`);
    const naming = files('packages/platform/src', (name) => name.endsWith('.ts')).flatMap((file) =>
      read(file)
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/|\/\*)/.test(line) && quoted.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(naming).toEqual([]);
  });

  it('has a manifest per service in the Kubernetes base', () => {
    for (const name of services) expect(statSync(path.join(root, `deploy/kubernetes/base/${name}.yaml`)).isFile()).toBe(true);
  });
});

/** The relative imports of each TypeScript file under `dir`, as a graph of files. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(dir, (name) => name.endsWith('.ts'))) {
    const targets = [...read(file).matchAll(/(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)].map((match) => path.join(path.dirname(file), match[1]!));
    graph.set(file, targets);
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected parts of more than one file (Tarjan). */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1) cycles.push(part.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}

describe('the source', () => {
  it('has no import cycle in a deployable or a package', () => {
    expect(
      cyclesOf(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['a.ts']],
          ['c.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
    expect(sourceDirs.flatMap((dir) => cyclesOf(importGraph(`${dir}/src`)))).toEqual([]);
  });

  it('cites decision records, never a file outside the repository', () => {
    const outside = typescript.filter((file) => /DECISIONS\.md/.test(read(file)));
    expect(outside).toEqual([]);
  });

  it('keeps every source file of the deployables and the platform under 300 lines', () => {
    const sources = [...deployableDirs, 'packages/platform'].flatMap((dir) => files(`${dir}/src`, (name) => name.endsWith('.ts')));
    const long = sources.filter((file) => read(file).split('\n').length > 300);
    expect(long).toEqual([]);
  });
});
