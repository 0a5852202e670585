import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler, type IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job, type IJob } from 'kubernetes-models/batch/v1/Job';
import { Ingress, type IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy, type INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget, type IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap, type IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Namespace, type INamespace } from 'kubernetes-models/v1/Namespace';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import { Secret, type ISecret } from 'kubernetes-models/v1/Secret';
import { Service, type IService } from 'kubernetes-models/v1/Service';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { KustomizeError, objectKey, parseImage, readYamlDocuments, renderKustomization, type KubeObject } from './support/kustomize.ts';
import { INTERNAL_CALLERS } from '@connectivity/contracts';
import { BUS_USERS, busPermissions } from '../src/bus-users.ts';
import { natsPasswordVariableOf } from '../src/credential-variables.ts';
import { CALLERS_OF, CREDENTIAL_OF } from '../src/internal-credentials.ts';
import { allServices } from '../src/services.ts';
import { egressAllowed, ingressAllowed, type Destination, type Peer } from './support/network-policy.ts';

/**
 * deploy/kubernetes, rendered offline for each overlay (test/support/kustomize.ts, the subset of
 * kustomize the manifests use), every object validated against the Kubernetes schemas
 * (kubernetes-models), and the rules of a safe deployment checked. No cluster, no network.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const k8sDir = path.join(root, 'deploy/kubernetes');
const OVERLAYS = ['production', 'laptop'] as const;

const DEPLOYABLES = ['gateway', 'catalogue', 'inventory', 'sandbox-simulator', 'notifications'] as const;
type Deployable = (typeof DEPLOYABLES)[number];
const HTTP_PORT = 8080;
const ADMIN_PORT = 8090;
/** Where each process serves /metrics: the gateway on its admin listener, never the public port. */
const METRICS_PORT: Record<Deployable, number> = {
  gateway: ADMIN_PORT,
  catalogue: HTTP_PORT,
  inventory: HTTP_PORT,
  'sandbox-simulator': HTTP_PORT,
  notifications: HTTP_PORT,
};
const MIGRATE_COMMAND = ['node', 'main.mjs'];

/** Who calls whom, with the variable that holds the callee's URL (each service's src/config.ts). */
const CALLS: { from: Deployable; to: Deployable; variable: string }[] = [
  { from: 'gateway', to: 'catalogue', variable: 'CATALOGUE_URL' },
  { from: 'gateway', to: 'inventory', variable: 'INVENTORY_URL' },
  { from: 'gateway', to: 'sandbox-simulator', variable: 'SANDBOX_SIMULATOR_URL' },
  { from: 'gateway', to: 'notifications', variable: 'NOTIFICATIONS_URL' },
  { from: 'inventory', to: 'catalogue', variable: 'CATALOGUE_URL' },
  { from: 'sandbox-simulator', to: 'inventory', variable: 'INVENTORY_URL' },
];

/**
 * Variables that hold secrets: they may only come from a Secret, by secretKeyRef, or (a URL with
 * a password) be made of variables that do (`$(DATABASE_PASSWORD)`).
 */
const SECRET_VARIABLES = [
  'INTERNAL_TOKEN',
  'ADMIN_INTERNAL_TOKEN',
  'METRICS_TOKEN',
  'NATS_PASSWORD',
  'DATABASE_PASSWORD',
  'DATABASE_OWNER_PASSWORD',
  'CURSOR_SECRET',
  'WEBHOOK_SECRET_KEY',
  'WEBHOOK_SECRET_KEY_PREVIOUS',
  'ADMIN_TOKEN',
  'DATABASE_URL',
  'REDIS_URL',
  'AIRALO_CLIENT_ID',
  'AIRALO_CLIENT_SECRET',
  'ESIMGO_API_KEY',
];

/** The secrets each process refuses to start without (in production, with a database server). */
const REQUIRED_SECRETS: Record<Deployable | 'migrate', string[]> = {
  gateway: ['INTERNAL_TOKEN', 'ADMIN_INTERNAL_TOKEN', 'CURSOR_SECRET', 'ADMIN_TOKEN', 'DATABASE_PASSWORD', 'NATS_PASSWORD', 'METRICS_TOKEN'],
  catalogue: ['CURSOR_SECRET', 'DATABASE_PASSWORD', 'NATS_PASSWORD', 'METRICS_TOKEN'],
  inventory: ['INTERNAL_TOKEN', 'CURSOR_SECRET', 'DATABASE_PASSWORD', 'NATS_PASSWORD', 'METRICS_TOKEN'],
  'sandbox-simulator': ['INTERNAL_TOKEN', 'DATABASE_PASSWORD', 'NATS_PASSWORD', 'METRICS_TOKEN'],
  notifications: ['CURSOR_SECRET', 'WEBHOOK_SECRET_KEY', 'DATABASE_PASSWORD', 'NATS_PASSWORD', 'METRICS_TOKEN'],
  migrate: ['DATABASE_OWNER_PASSWORD', 'NATS_PASSWORD'],
};
/** The Secret key each process's own credential is read from (deploy/make-secrets.sh's names). */
const keyOf = (deployable: string, variable: string): string => `${deployable.toUpperCase().replaceAll('-', '_')}_${variable}`;

const VALIDATORS: Record<string, (object: KubeObject) => void> = {
  'apps/v1/Deployment': (o) => new Deployment(o).validate(),
  'batch/v1/Job': (o) => new Job(o).validate(),
  'autoscaling/v2/HorizontalPodAutoscaler': (o) => new HorizontalPodAutoscaler(o as unknown as IHorizontalPodAutoscaler).validate(),
  'policy/v1/PodDisruptionBudget': (o) => new PodDisruptionBudget(o).validate(),
  'networking.k8s.io/v1/NetworkPolicy': (o) => new NetworkPolicy(o).validate(),
  'networking.k8s.io/v1/Ingress': (o) => new Ingress(o).validate(),
  'v1/Service': (o) => new Service(o).validate(),
  'v1/ConfigMap': (o) => new ConfigMap(o).validate(),
  'v1/Namespace': (o) => new Namespace(o).validate(),
  'v1/Secret': (o) => new Secret(o).validate(),
};

// ---- reading the rendered objects -------------------------------------------------------------

const ofKind = <T>(objects: KubeObject[], kind: string) => objects.filter((o) => o.kind === kind) as unknown as T[];
const nameOf = (object: { metadata?: { name?: string } }) => object.metadata?.name ?? '(unnamed)';
const podSpec = (workload: IDeployment | IJob): IPodSpec => workload.spec?.template.spec ?? { containers: [] };
const allContainers = (spec: IPodSpec): IContainer[] => [...(spec.initContainers ?? []), ...spec.containers];
const mainContainer = (deployment: IDeployment): IContainer | undefined => podSpec(deployment).containers.find((c) => c.name === nameOf(deployment));
const podLabels = (deployment: IDeployment) => deployment.spec?.template.metadata?.labels ?? {};
const selectsLabels = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The container port a probe or Service targets (a number, or a port's name). */
function resolvePort(container: IContainer | undefined, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return container?.ports?.find((p) => p.name === port)?.containerPort;
}

const CPU = /^(\d+(?:\.\d+)?)(m?)$/;
const MEMORY = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/;
const MEMORY_UNITS: Record<string, number> = { '': 1, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };

/** A cpu or memory quantity as a number (cores, bytes), or undefined when it cannot be read. */
function quantity(resource: 'cpu' | 'memory', value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  if (text === undefined) return undefined;
  if (resource === 'cpu') {
    const m = CPU.exec(text);
    return m ? Number(m[1]) / (m[2] ? 1000 : 1) : undefined;
  }
  const m = MEMORY.exec(text);
  return m ? Number(m[1]) * (MEMORY_UNITS[m[2] ?? ''] ?? Number.NaN) : undefined;
}

function render(overlay: string): KubeObject[] {
  return renderKustomization(path.join(k8sDir, 'overlays', overlay));
}

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.ya?ml$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

// ---- the rules ------------------------------------------------------------------------------------

describe.each(OVERLAYS)('deploy/kubernetes/overlays/%s', (overlay) => {
  const objects = render(overlay);
  const deployments = ofKind<IDeployment>(objects, 'Deployment');
  const services = ofKind<IService>(objects, 'Service');
  const policies = ofKind<INetworkPolicy>(objects, 'NetworkPolicy');
  const jobs = ofKind<IJob>(objects, 'Job');
  const workloads: (IDeployment | IJob)[] = [...deployments, ...jobs];
  const namespaces = ofKind<INamespace>(objects, 'Namespace');
  const namespace = namespaces[0]?.metadata?.name ?? '(none)';
  const deploymentOf = (name: string) => deployments.find((d) => nameOf(d) === name);

  it('every object is valid against the Kubernetes schema of its kind', () => {
    const problems: string[] = [];
    for (const object of objects) {
      const validate = VALIDATORS[`${object.apiVersion}/${object.kind}`];
      if (!validate) {
        problems.push(`${objectKey(object)}: no schema known for ${object.apiVersion} ${object.kind}`);
        continue;
      }
      try {
        validate(object);
      } catch (error) {
        problems.push(`${objectKey(object)}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('lives in one namespace, which enforces the restricted Pod Security Standard', () => {
    expect(namespaces.map(nameOf)).toEqual(['connectivity']);
    expect(namespaces[0]?.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    const elsewhere = objects.filter((o) => o.kind !== 'Namespace' && o.metadata.namespace !== namespace).map(objectKey);
    expect(elsewhere, 'objects outside the namespace').toEqual([]);
  });

  it('has a Deployment and a Service for each of the five deployables, and nothing else deployed', () => {
    expect(deployments.map(nameOf).sort()).toEqual([...DEPLOYABLES].sort());
    const problems: string[] = [];
    for (const name of DEPLOYABLES) {
      const deployment = deploymentOf(name);
      if (!deployment) continue;
      if (!selectsLabels(deployment.spec?.selector.matchLabels, podLabels(deployment))) problems.push(`${name}: selector does not select its own pod template`);
      if (!mainContainer(deployment)) problems.push(`${name}: no container named ${name}`);
      const service = services.find((s) => nameOf(s) === name);
      if (!service) problems.push(`${name}: no Service named ${name}`);
      else {
        if (!selectsLabels(service.spec?.selector, podLabels(deployment))) problems.push(`Service ${name}: does not select the ${name} pods`);
        const port = service.spec?.ports?.find((p) => p.port === HTTP_PORT);
        if (!port) problems.push(`Service ${name}: no port ${HTTP_PORT}`);
        else if (resolvePort(mainContainer(deployment), port.targetPort) !== HTTP_PORT)
          problems.push(`Service ${name}: port ${HTTP_PORT} does not reach the container's ${HTTP_PORT}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('probes readiness on /readyz and liveness on /healthz, on the service port', () => {
    const problems: string[] = [];
    for (const deployment of deployments) {
      const container = mainContainer(deployment);
      const probes = { readinessProbe: '/readyz', livenessProbe: '/healthz' } as const;
      for (const [probe, expected] of Object.entries(probes) as [keyof typeof probes, string][]) {
        const httpGet = container?.[probe]?.httpGet;
        if (!httpGet) problems.push(`${nameOf(deployment)}: no ${probe} httpGet`);
        else if (httpGet.path !== expected) problems.push(`${nameOf(deployment)}: ${probe} on ${httpGet.path ?? '(no path)'}, expected ${expected}`);
        else if (resolvePort(container, httpGet.port) !== HTTP_PORT) problems.push(`${nameOf(deployment)}: ${probe} not on port ${HTTP_PORT}`);
      }
      // A startup probe must not check dependencies either: a database outage would stop pods from starting.
      const startup = container?.startupProbe?.httpGet?.path;
      if (startup !== undefined && startup !== '/healthz') problems.push(`${nameOf(deployment)}: startupProbe on ${startup}, expected /healthz`);
    }
    expect(problems).toEqual([]);
  });

  it('gives every container cpu and memory requests and limits, requests within limits', () => {
    const problems: string[] = [];
    for (const workload of workloads) {
      for (const container of allContainers(podSpec(workload))) {
        const where = `${workload.kind}/${nameOf(workload)} container ${container.name}`;
        for (const resource of ['cpu', 'memory'] as const) {
          const request = quantity(resource, container.resources?.requests?.[resource]);
          const limit = quantity(resource, container.resources?.limits?.[resource]);
          if (request === undefined) problems.push(`${where}: no ${resource} request`);
          if (limit === undefined) problems.push(`${where}: no ${resource} limit`);
          if (request !== undefined && limit !== undefined && request > limit) problems.push(`${where}: ${resource} request above its limit`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('takes every secret from a Secret by secretKeyRef, and gives each process the secrets it needs', () => {
    const problems: string[] = [];
    for (const workload of workloads) {
      for (const container of allContainers(podSpec(workload))) {
        const where = `${workload.kind}/${nameOf(workload)} container ${container.name}`;
        for (const source of container.envFrom ?? []) {
          if (source.secretRef) problems.push(`${where}: envFrom a whole Secret; name each secret with secretKeyRef`);
        }
        const fromSecret = new Set((container.env ?? []).filter((v) => v.valueFrom?.secretKeyRef).map((v) => v.name));
        for (const variable of container.env ?? []) {
          if (!SECRET_VARIABLES.includes(variable.name)) continue;
          if (variable.valueFrom?.secretKeyRef) continue;
          // A URL made of secrets: every $(NAME) in it from a secretKeyRef, and no password written out.
          const refs = [...(variable.value ?? '').matchAll(/\$\(([A-Z0-9_]+)\)/g)].map((m) => m[1] ?? '');
          const password = /^[a-z]+:\/\/[^:/@]+:([^@]*)@/.exec(variable.value ?? '')?.[1];
          if (refs.length === 0 || refs.some((ref) => !fromSecret.has(ref)) || (password !== undefined && !/^\$\([A-Z0-9_]+\)$/.test(password))) {
            problems.push(`${where}: ${variable.name} is neither from a secretKeyRef nor made of variables that are`);
          }
        }
        const role = container.command?.join(' ') === MIGRATE_COMMAND.join(' ') ? 'migrate' : (container.name as Deployable);
        for (const required of REQUIRED_SECRETS[role] ?? []) {
          const ref = container.env?.find((v) => v.name === required)?.valueFrom?.secretKeyRef;
          if (!ref) problems.push(`${where}: needs ${required} from a Secret`);
          else if (ref.optional) problems.push(`${where}: ${required} is required, not optional`);
        }
      }
    }
    for (const configMap of ofKind<IConfigMap>(objects, 'ConfigMap')) {
      for (const key of Object.keys(configMap.data ?? {})) {
        if (SECRET_VARIABLES.includes(key)) problems.push(`ConfigMap/${nameOf(configMap)}: holds ${key}, a secret`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('ships no Secret with values', () => {
    const withValues = ofKind<ISecret>(objects, 'Secret').filter((s) => s.data || s.stringData);
    expect(withValues.map(nameOf)).toEqual([]);
  });

  it('has a PodDisruptionBudget and a HorizontalPodAutoscaler (autoscaling/v2) for each Deployment', () => {
    const pdbs = ofKind<IPodDisruptionBudget>(objects, 'PodDisruptionBudget');
    const hpas = ofKind<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
    const problems: string[] = [];
    for (const deployment of deployments) {
      const name = nameOf(deployment);
      const hpa = hpas.filter(
        (h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === name && h.spec.scaleTargetRef.apiVersion === 'apps/v1',
      );
      if (hpa.length !== 1) problems.push(`${name}: ${hpa.length} HorizontalPodAutoscalers target it, expected 1`);
      const minReplicas = hpa[0]?.spec?.minReplicas ?? 1;
      if (hpa[0] && minReplicas > (hpa[0].spec?.maxReplicas ?? 0)) problems.push(`${name}: HPA minReplicas above maxReplicas`);
      if (deployment.spec?.replicas !== undefined) problems.push(`${name}: sets spec.replicas, which every apply would reset under the HPA`);

      const pdb = pdbs.filter((p) => selectsLabels(p.spec?.selector?.matchLabels, podLabels(deployment)));
      if (pdb.length !== 1) problems.push(`${name}: ${pdb.length} PodDisruptionBudgets select its pods, expected 1`);
      const others = deployments.filter((d) => d !== deployment && pdb[0] && selectsLabels(pdb[0].spec?.selector?.matchLabels, podLabels(d)));
      if (others.length > 0) problems.push(`${name}: its PodDisruptionBudget also selects ${others.map(nameOf).join(', ')}`);
      // A budget a node drain can never satisfy blocks cluster upgrades.
      const minAvailable = pdb[0]?.spec?.minAvailable;
      if (typeof minAvailable === 'number' && minAvailable >= minReplicas)
        problems.push(`${name}: PDB minAvailable ${minAvailable} leaves no pod evictable at ${minReplicas} replicas`);
    }
    expect(problems).toEqual([]);
  });

  it('runs the migrations in a Job named for its release, and every Deployment waits for them', () => {
    expect(jobs.map(nameOf), 'exactly one migrations Job').toHaveLength(1);
    const job = jobs[0] as IJob;
    const migrate = podSpec(job).containers[0];
    expect(migrate?.command).toEqual(MIGRATE_COMMAND);
    const launcherTag = parseImage(migrate?.image ?? '').tag ?? '';
    // Jobs are immutable: a release that kept the name would fail to apply its Job.
    expect(nameOf(job), 'the Job name carries the release (its image tag, dots as dashes)').toBe(`migrate-${launcherTag.replaceAll('.', '-')}`);

    const problems: string[] = [];
    for (const deployment of deployments) {
      const init = podSpec(deployment).initContainers ?? [];
      const waits = init.find((c) => c.command?.join(' ') === MIGRATE_COMMAND.join(' '));
      if (!waits) problems.push(`${nameOf(deployment)}: no init container runs the migrations`);
      else if (waits.image !== migrate?.image)
        problems.push(`${nameOf(deployment)}: init container runs ${waits.image ?? '(none)'}, the Job ${migrate?.image ?? '(none)'}`);
    }
    expect(problems).toEqual([]);
  });

  it('keeps the admin listener off the public Service: only gateway-admin exposes it', () => {
    const gateway = deploymentOf('gateway');
    const container = gateway && mainContainer(gateway);
    expect(container?.env?.find((v) => v.name === 'ADMIN_PORT')?.value).toBe(String(ADMIN_PORT));
    const problems: string[] = [];
    for (const service of services) {
      const reachesGateway = gateway && selectsLabels(service.spec?.selector, podLabels(gateway));
      if (!reachesGateway) continue;
      const targets = (service.spec?.ports ?? []).map((p) => resolvePort(container, p.targetPort ?? p.port));
      if (nameOf(service) === 'gateway-admin') {
        if (targets.join() !== String(ADMIN_PORT)) problems.push(`Service gateway-admin: targets ${targets.join()}, expected only ${ADMIN_PORT}`);
        if ((service.spec?.type ?? 'ClusterIP') !== 'ClusterIP') problems.push('Service gateway-admin: must be ClusterIP');
      } else if (targets.some((port) => port !== HTTP_PORT)) {
        problems.push(`Service ${nameOf(service)}: exposes gateway ports ${targets.join()}, only ${HTTP_PORT} is public`);
      }
    }
    for (const ingress of ofKind<IIngress>(objects, 'Ingress')) {
      const backends = (ingress.spec?.rules ?? []).flatMap((rule) => rule.http?.paths ?? []).map((p) => p.backend.service?.name);
      if (backends.includes('gateway-admin')) problems.push(`Ingress ${nameOf(ingress)}: routes to gateway-admin`);
    }
    expect(problems).toEqual([]);
  });

  it('points each service at the Services of the peers it calls', () => {
    const problems: string[] = [];
    for (const call of CALLS) {
      const caller = deploymentOf(call.from);
      const value = (caller && mainContainer(caller))?.env?.find((v) => v.name === call.variable)?.value;
      if (!value) {
        problems.push(`${call.from}: ${call.variable} unset`);
        continue;
      }
      const url = new URL(value);
      const host = url.hostname.split('.');
      const service = services.find((s) => nameOf(s) === host[0]);
      const callee = deploymentOf(call.to);
      if (!service || !callee || !selectsLabels(service.spec?.selector, podLabels(callee)))
        problems.push(`${call.from}: ${call.variable}=${value} does not reach ${call.to}`);
      else if (host.length > 1 && host[1] !== namespace) problems.push(`${call.from}: ${call.variable}=${value} names another namespace`);
      else if (!service.spec?.ports?.some((p) => p.port === Number(url.port || 80)))
        problems.push(`${call.from}: ${call.variable}=${value}: no such port on Service ${nameOf(service)}`);
    }
    expect(problems).toEqual([]);
  });

  it('denies ingress by default, and lets through only the calls the services make', () => {
    const defaultDeny = policies.filter(
      (p) =>
        Object.keys(p.spec?.podSelector?.matchLabels ?? {}).length === 0 &&
        !p.spec?.podSelector?.matchExpressions?.length &&
        (p.spec?.policyTypes ?? []).includes('Ingress') &&
        !p.spec?.ingress?.length,
    );
    expect(defaultDeny.map(nameOf), 'a default-deny ingress NetworkPolicy').toHaveLength(1);

    const peers: Record<string, Peer> = {
      ...Object.fromEntries(deployments.map((d) => [nameOf(d), { namespace, labels: podLabels(d) }])),
      'migrate job': { namespace, labels: jobs[0]?.spec?.template.metadata?.labels ?? {} },
      operator: { namespace, labels: { 'connectivity/admin-client': 'true' } },
      'ingress controller': { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' } },
      prometheus: { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } },
      'other monitoring pod': { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'grafana' } },
    };
    const expected = (source: string, target: Deployable, port: number): boolean => {
      // The public port from the ingress controller alone: its X-Forwarded-For is the one trusted.
      if (target === 'gateway' && port === HTTP_PORT) return source === 'ingress controller';
      // Prometheus reaches the admin listener for /metrics only; the gateway asks the admin
      // token on every other path there.
      if (target === 'gateway' && port === ADMIN_PORT) return source === 'operator' || source === 'prometheus';
      if (port !== HTTP_PORT) return false;
      return source === 'prometheus' || CALLS.some((call) => call.from === source && call.to === target);
    };
    const wrong: string[] = [];
    for (const target of DEPLOYABLES) {
      const targetPeer = peers[target];
      if (!targetPeer) continue;
      for (const [source, sourcePeer] of Object.entries(peers)) {
        if (source === target) continue;
        for (const port of [HTTP_PORT, ADMIN_PORT, 5432]) {
          const allowed = ingressAllowed(policies, sourcePeer, targetPeer, port);
          if (allowed !== expected(source, target, port)) wrong.push(`${source} -> ${target}:${port} is ${allowed ? 'allowed' : 'denied'}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('lets notifications, which calls URLs tenants choose, reach the internet, DNS, its database and bus, and nothing else in the cluster', () => {
    const notifications = deployments.find((d) => nameOf(d) === 'notifications');
    expect(notifications).toBeDefined();
    const source: Peer = { namespace, labels: podLabels(notifications as never) };
    const data = (name: string): Peer => ({ namespace: 'connectivity-data', labels: { 'app.kubernetes.io/name': name } });
    const allowed = (destination: Destination, port: number, protocol = 'TCP') => egressAllowed(policies, source, destination, port, protocol);

    expect(allowed({ ip: '93.184.216.34' }, 443)).toBe(true);
    expect(allowed({ ip: '93.184.216.34' }, 8443)).toBe(true);
    expect(allowed({ ip: '2606:2800:220:1:248:1893:25c8:1946' }, 443)).toBe(true);
    expect(allowed({ peer: { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } } }, 53, 'UDP')).toBe(true);
    expect(allowed({ peer: data('postgresql') }, 5432)).toBe(true);
    expect(allowed({ peer: data('nats') }, 4222)).toBe(true);

    for (const ip of ['169.254.169.254', '10.0.0.1', '10.96.0.1', '172.20.3.4', '192.168.1.1', '127.0.0.1', '100.64.0.1', 'fd00:ec2::254', 'fe80::1', '::1']) {
      expect(allowed({ ip }, 80), ip).toBe(false);
    }
    // IPv4 addresses reached through IPv6: NAT64 (the well-known and the local-use prefix) and mapped.
    for (const ip of ['64:ff9b::a9fe:a9fe', '64:ff9b::a00:1', '64:ff9b:1::a00:1', '::ffff:a9fe:a9fe']) {
      expect(allowed({ ip }, 443), ip).toBe(false);
    }
    const gateway = deployments.find((d) => nameOf(d) === 'gateway');
    expect(allowed({ peer: { namespace, labels: podLabels(gateway as never) } }, ADMIN_PORT)).toBe(false);
    expect(allowed({ peer: data('postgresql') }, 22)).toBe(false);
  });

  it('opens only the connections each pod needs: egress is denied by default', () => {
    const data = (port: number): [string, Destination, number, string] => [
      `connectivity-data:${port}`,
      { peer: { namespace: 'connectivity-data', labels: {} } },
      port,
      'TCP',
    ];
    const destinations: [string, Destination, number, string][] = [
      ['dns', { peer: { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } } }, 53, 'UDP'],
      data(5432),
      data(4222),
      data(6379),
      ['collector', { peer: { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'otel-collector' } } }, 4318, 'TCP'],
      ['internet:443', { ip: '93.184.216.34' }, 443, 'TCP'],
      ['internet:8443', { ip: '93.184.216.34' }, 8443, 'TCP'],
      ['metadata', { ip: '169.254.169.254' }, 80, 'TCP'],
      ['nat64 metadata', { ip: '64:ff9b::a9fe:a9fe' }, 80, 'TCP'],
      ...DEPLOYABLES.map((name): [string, Destination, number, string] => [
        `${name}:8080`,
        { peer: { namespace, labels: podLabels(deploymentOf(name) as IDeployment) } },
        HTTP_PORT,
        'TCP',
      ]),
      ['gateway:8090', { peer: { namespace, labels: podLabels(deploymentOf('gateway') as IDeployment) } }, ADMIN_PORT, 'TCP'],
    ];
    const everyone = new Set(['dns', 'connectivity-data:5432', 'connectivity-data:4222', 'collector']);
    const needs: Record<string, string[]> = {
      gateway: ['catalogue:8080', 'inventory:8080', 'sandbox-simulator:8080', 'notifications:8080', 'connectivity-data:6379'],
      catalogue: ['internet:443'],
      inventory: ['catalogue:8080'],
      'sandbox-simulator': ['inventory:8080'],
      notifications: ['internet:443', 'internet:8443'],
      migrate: [],
    };
    const sources: [string, Peer][] = [
      ...DEPLOYABLES.map((name): [string, Peer] => [name, { namespace, labels: podLabels(deploymentOf(name) as IDeployment) }]),
      ['migrate', { namespace, labels: jobs[0]?.spec?.template.metadata?.labels ?? {} }],
    ];
    const wrong: string[] = [];
    for (const [source, peer] of sources) {
      for (const [what, destination, port, protocol] of destinations) {
        const allowed = egressAllowed(policies, peer, destination, port, protocol);
        if (allowed !== (everyone.has(what) || (needs[source] ?? []).includes(what))) wrong.push(`${source} -> ${what} is ${allowed ? 'allowed' : 'denied'}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('gives each process its own credentials: its database login over TLS, its NATS user, its tokens and its callers', () => {
    const problems: string[] = [];
    const caFile = ofKind<IConfigMap>(objects, 'ConfigMap').find((c) => nameOf(c) === 'connectivity-config')?.data?.DATABASE_CA_FILE ?? '';
    expect(caFile).toMatch(/\/ca\.crt$/);
    const keyIn = (container: IContainer, name: string) => container.env?.find((v) => v.name === name)?.valueFrom?.secretKeyRef?.key;
    const valueIn = (container: IContainer, name: string) => container.env?.find((v) => v.name === name)?.value;
    for (const workload of workloads) {
      const spec = podSpec(workload);
      for (const container of allContainers(spec)) {
        const where = `${workload.kind}/${nameOf(workload)} container ${container.name}`;
        const migrate = container.command?.join(' ') === MIGRATE_COMMAND.join(' ');
        const mount = container.volumeMounts?.find((m) => m.mountPath === path.dirname(caFile));
        const volume = spec.volumes?.find((v) => v.name === mount?.name);
        if (volume?.secret?.secretName !== 'connectivity-db-ca' || !volume.secret.items?.some((i) => i.key === 'ca.crt' && i.path === 'ca.crt'))
          problems.push(`${where}: the database CA (connectivity-db-ca's ca.crt) is not at ${caFile}`);
        if (migrate) {
          if (
            valueIn(container, 'DATABASE_URL') !==
            'postgres://connectivity:$(DATABASE_OWNER_PASSWORD)@connectivity-db-rw.connectivity-data.svc:5432/connectivity'
          )
            problems.push(`${where}: the migrations do not connect as the owner`);
          if (keyIn(container, 'DATABASE_OWNER_PASSWORD') !== 'DATABASE_OWNER_PASSWORD') problems.push(`${where}: not the owner's password`);
          if (valueIn(container, 'DATABASE_RUNTIME_ROLE_PREFIX') !== 'connectivity_') problems.push(`${where}: grants no runtime login`);
          if (valueIn(container, 'NATS_USER') !== 'migrate' || keyIn(container, 'NATS_PASSWORD') !== 'MIGRATE_NATS_PASSWORD')
            problems.push(`${where}: not the NATS user migrate`);
          if (!container.envFrom?.some((source) => source.configMapRef?.name === 'connectivity-config'))
            problems.push(`${where}: does not read connectivity-config (NATS, the CA)`);
          continue;
        }
        const name = container.name;
        const schema = allServices.find((service) => service.name === name)?.migrations.schema;
        if (
          valueIn(container, 'DATABASE_URL') !==
          `postgres://connectivity_${schema}:$(DATABASE_PASSWORD)@connectivity-db-rw.connectivity-data.svc:5432/connectivity`
        )
          problems.push(`${where}: does not connect as connectivity_${schema}`);
        if (keyIn(container, 'DATABASE_PASSWORD') !== keyOf(name, 'DATABASE_PASSWORD')) problems.push(`${where}: not its own database password`);
        if (valueIn(container, 'NATS_USER') !== name || keyIn(container, 'NATS_PASSWORD') !== keyOf(name, 'NATS_PASSWORD'))
          problems.push(`${where}: not its own NATS user`);
        for (const caller of INTERNAL_CALLERS) {
          const holder = CREDENTIAL_OF[caller];
          const key = keyIn(container, holder.variable);
          if (holder.deployable === name && key !== keyOf(caller, 'INTERNAL_TOKEN')) problems.push(`${where}: ${holder.variable} is not ${caller}'s token`);
        }
        const callers = CALLERS_OF[name] ?? [];
        const expectedCallers = callers.map((caller) => `${caller}=$(${keyOf(caller, 'INTERNAL_TOKEN_SHA256')})`).join(',');
        if ((valueIn(container, 'INTERNAL_CALLERS') ?? '') !== expectedCallers)
          problems.push(`${where}: INTERNAL_CALLERS is not ${expectedCallers || '(none)'}`);
        for (const caller of callers) {
          if (keyIn(container, keyOf(caller, 'INTERNAL_TOKEN_SHA256')) !== keyOf(caller, 'INTERNAL_TOKEN_SHA256'))
            problems.push(`${where}: no digest of ${caller}'s token`);
        }
        // No one else's secrets: every key read is this process's own or shared by design.
        const shared = [
          'CURSOR_SECRET',
          'METRICS_TOKEN',
          'ADMIN_TOKEN',
          'WEBHOOK_SECRET_KEY',
          'WEBHOOK_SECRET_KEY_PREVIOUS',
          'REDIS_URL',
          'AIRALO_CLIENT_ID',
          'AIRALO_CLIENT_SECRET',
          'ESIMGO_API_KEY',
        ];
        const own = (key: string) =>
          key.startsWith(`${name.toUpperCase().replaceAll('-', '_')}_`) ||
          shared.includes(key) ||
          callers.some((caller) => key === keyOf(caller, 'INTERNAL_TOKEN_SHA256'));
        for (const variable of container.env ?? []) {
          const key = variable.valueFrom?.secretKeyRef?.key;
          if (key !== undefined && !own(key)) problems.push(`${where}: reads ${key}, another's secret`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('runs every container as non-root, read-only, without privileges, under RuntimeDefault seccomp', () => {
    const problems: string[] = [];
    for (const workload of workloads) {
      const spec = podSpec(workload);
      const where = `${workload.kind}/${nameOf(workload)}`;
      const pod = spec.securityContext;
      if (pod?.runAsNonRoot !== true) problems.push(`${where}: runAsNonRoot is not true`);
      // runAsNonRoot can only be verified against a numeric user.
      if (!Number.isInteger(pod?.runAsUser) || (pod?.runAsUser ?? 0) <= 0) problems.push(`${where}: runAsUser is not a numeric non-root uid`);
      if (pod?.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${where}: seccompProfile is not RuntimeDefault`);
      if (spec.automountServiceAccountToken !== false) problems.push(`${where}: mounts a service account token it does not use`);
      if (spec.hostNetwork || spec.hostPID || spec.hostIPC) problems.push(`${where}: shares a host namespace`);
      for (const container of allContainers(spec)) {
        const sc = container.securityContext;
        const at = `${where} container ${container.name}`;
        if (sc?.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation is not false`);
        if (sc?.privileged) problems.push(`${at}: privileged`);
        if (sc?.readOnlyRootFilesystem !== true) problems.push(`${at}: root filesystem is writable`);
        if (!sc?.capabilities?.drop?.includes('ALL')) problems.push(`${at}: does not drop ALL capabilities`);
        if (sc?.capabilities?.add?.length) problems.push(`${at}: adds capabilities`);
        if (sc?.runAsUser === 0 || sc?.runAsNonRoot === false) problems.push(`${at}: overrides the pod to run as root`);
        const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
        if (!tmp || !spec.volumes?.find((v) => v.name === tmp.name)?.emptyDir) problems.push(`${at}: no emptyDir at /tmp`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('stops gracefully: 30 s grace, a short preStop, and Prometheus scrape annotations', () => {
    const problems: string[] = [];
    for (const deployment of deployments) {
      const name = nameOf(deployment);
      const spec = podSpec(deployment);
      if (spec.terminationGracePeriodSeconds !== 30)
        problems.push(`${name}: terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds ?? '(default)'}, expected 30`);
      const preStop = mainContainer(deployment)?.lifecycle?.preStop?.exec?.command ?? [];
      // The preStop sleep plus the service's own drain (under 10 s) must fit in the grace period.
      if (preStop[0] !== 'sleep' || !(Number(preStop[1]) > 0 && Number(preStop[1]) <= 15))
        problems.push(`${name}: preStop should sleep a few seconds while the endpoint is removed`);
      const annotations = deployment.spec?.template.metadata?.annotations ?? {};
      const metricsPort = METRICS_PORT[name as Deployable];
      if (
        annotations['prometheus.io/scrape'] !== 'true' ||
        annotations['prometheus.io/path'] !== '/metrics' ||
        annotations['prometheus.io/port'] !== String(metricsPort)
      ) {
        problems.push(`${name}: Prometheus scrape annotations missing or not on port ${metricsPort}`);
      } else if (!mainContainer(deployment)?.ports?.some((p) => p.containerPort === metricsPort)) {
        problems.push(`${name}: scraped on port ${metricsPort}, which its container does not declare`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('names a release for every image (a tag, never latest)', () => {
    const untagged = workloads.flatMap((workload) =>
      allContainers(podSpec(workload))
        .filter((container) => {
          const image = parseImage(container.image ?? '');
          return !image.digest && (!image.tag || image.tag === 'latest');
        })
        .map((container) => `${workload.kind}/${nameOf(workload)} ${container.name}: ${container.image ?? '(no image)'}`),
    );
    expect(untagged).toEqual([]);
  });

  it('sets the shared configuration: NATS, a bounded database pool, nothing on disk', () => {
    const config = ofKind<IConfigMap>(objects, 'ConfigMap').find((c) => nameOf(c) === 'connectivity-config');
    expect(config?.data?.NATS_URL).toMatch(/^nats:\/\//);
    // Every event on each NATS server of the cluster: three in production, the laptop's one.
    expect(config?.data?.NATS_STREAM_REPLICAS).toBe(overlay === 'laptop' ? '1' : '3');
    expect(Number(config?.data?.DATABASE_POOL_MAX)).toBeGreaterThan(0);
    expect(config?.data?.DATA_DIR).toBe('memory://');
    const problems = deployments
      .filter((d) => !mainContainer(d)?.envFrom?.some((source) => source.configMapRef?.name === 'connectivity-config'))
      .map((d) => `${nameOf(d)}: does not read connectivity-config`);
    expect(problems).toEqual([]);
  });
});

describe('deploy/kubernetes as files', () => {
  const files = yamlFilesUnder(k8sDir);

  it('holds no Secret with values in any YAML file', () => {
    const withValues = files.flatMap((file) =>
      readYamlDocuments(file)
        .filter((doc) => {
          const object = doc as Record<string, unknown>;
          return object.kind === 'Secret' && (object.data !== undefined || object.stringData !== undefined);
        })
        .map(() => path.relative(root, file)),
    );
    expect(withValues).toEqual([]);
  });

  it('describes highly available dependencies: a 3-instance CloudNativePG cluster, a 3-node NATS with file-backed JetStream', () => {
    const [cluster] = readYamlDocuments(path.join(k8sDir, 'dependencies/postgres-cluster.yaml')) as {
      apiVersion: string;
      kind: string;
      spec: { instances: number; postgresql?: { parameters?: Record<string, string> } };
    }[];
    expect(cluster?.apiVersion).toBe('postgresql.cnpg.io/v1');
    expect(cluster?.kind).toBe('Cluster');
    expect(cluster?.spec.instances).toBe(3);
    const nats = parseYaml(readFileSync(path.join(k8sDir, 'dependencies/nats-values.yaml'), 'utf8')) as {
      config: { cluster: { enabled: boolean; replicas: number }; jetstream: { enabled: boolean; fileStore: { enabled?: boolean } } };
    };
    expect(nats.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    const base = readYamlDocuments(path.join(k8sDir, 'base/config.yaml'))[0] as IConfigMap;
    expect(base.data?.NATS_STREAM_REPLICAS, 'the streams on every server').toBe(String(nats.config.cluster.replicas));
    expect(nats.config.jetstream.enabled).toBe(true);
    expect(nats.config.jetstream.fileStore.enabled ?? true).toBe(true);

    // Every pod's pool at the HPA ceiling, one surge pod per Deployment during a rollout, and
    // the migrations must fit in max_connections.
    const production = render('production');
    const pool = Number(ofKind<IConfigMap>(production, 'ConfigMap').find((c) => nameOf(c) === 'connectivity-config')?.data?.DATABASE_POOL_MAX);
    const hpas = ofKind<IHorizontalPodAutoscaler>(production, 'HorizontalPodAutoscaler');
    const maxPods = hpas.reduce((sum, h) => sum + (h.spec?.maxReplicas ?? 0), 0) + hpas.length;
    const maxConnections = Number(cluster?.spec.postgresql?.parameters?.max_connections ?? 100);
    expect(maxPods * pool + 10, `${maxPods} pods x ${pool} connections within max_connections ${maxConnections}`).toBeLessThanOrEqual(maxConnections);
  });

  it('gives PostgreSQL a login per service and no connection without TLS, and NATS the users of bus-users.ts', () => {
    const [cluster] = readYamlDocuments(path.join(k8sDir, 'dependencies/postgres-cluster.yaml')) as {
      spec: {
        bootstrap: { initdb: { owner: string; secret?: { name: string } } };
        managed?: { roles?: { name: string; login?: boolean; passwordSecret?: { name: string } }[] };
        postgresql?: { pg_hba?: string[] };
      };
    }[];
    expect(cluster?.spec.bootstrap.initdb).toMatchObject({ owner: 'connectivity', secret: { name: 'connectivity-db-owner' } });
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect([...(cluster?.spec.managed?.roles ?? [])].sort(byName)).toEqual(
      allServices
        .map((service) => ({
          name: `connectivity_${service.migrations.schema}`,
          ensure: 'present',
          login: true,
          passwordSecret: { name: `connectivity-db-${service.name}` },
        }))
        .sort(byName),
    );
    expect(cluster?.spec.postgresql?.pg_hba).toEqual(['hostnossl all all 0.0.0.0/0 reject', 'hostnossl all all ::/0 reject']);

    const nats = parseYaml(readFileSync(path.join(k8sDir, 'dependencies/nats-values.yaml'), 'utf8')) as {
      config: { merge?: { authorization?: { users?: unknown[] } } };
      container?: { env?: Record<string, unknown> };
    };
    const permissions = busPermissions();
    expect(nats.config.merge?.authorization?.users).toEqual(
      BUS_USERS.map((user) => ({ user, password: `<< $${natsPasswordVariableOf(user)} >>`, permissions: permissions[user] })),
    );
    expect(nats.container?.env).toEqual(
      Object.fromEntries(
        BUS_USERS.map((user) => [natsPasswordVariableOf(user), { valueFrom: { secretKeyRef: { name: 'nats-users', key: natsPasswordVariableOf(user) } } }]),
      ),
    );
  });

  it('builds images that run as the numeric uid the pods declare, with a health check, on a pinned Node 24', () => {
    const dockerfile = readFileSync(path.join(root, 'deploy/Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    const user = /^USER\s+(\S+)\s*$/m.exec(runtime)?.[1];
    expect(user, 'the runtime stage sets a numeric USER (k8s can verify runAsNonRoot only for a number)').toMatch(/^\d+(:\d+)?$/);
    const uid = Number(user?.split(':')[0]);
    expect(uid).toBeGreaterThan(0);
    const runAsUsers = new Set(ofKind<IDeployment>(render('production'), 'Deployment').map((d) => d.spec?.template.spec?.securityContext?.runAsUser));
    expect([...runAsUsers]).toEqual([uid]);
    expect(runtime).toMatch(/^HEALTHCHECK .*\/healthz/m);
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:24\.\d+\.\d+-\S+$/m);
    expect(dockerfile).toMatch(/--frozen-lockfile/);
  });
});

// ---- the renderer is kustomize ------------------------------------------------------------------

const kubectlVersion = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 30_000 });
const hasKubectl = kubectlVersion.status === 0;

describe('test/support/kustomize.ts', () => {
  // Where kubectl is installed, the renderer must agree with the real kustomize exactly.
  it.skipIf(!hasKubectl).each(OVERLAYS)('renders overlays/%s exactly as `kubectl kustomize` does', (overlay) => {
    const dir = path.join(k8sDir, 'overlays', overlay);
    const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const byKey = (list: KubeObject[]) => Object.fromEntries(list.map((o) => [objectKey(o), o]));
    const theirs = byKey(
      result.stdout
        .split(/^---$/m)
        .map((doc) => parseYaml(doc) as KubeObject | null)
        .filter((doc): doc is KubeObject => doc != null),
    );
    expect(byKey(render(overlay))).toEqual(theirs);
  });

  const scratch = mkdtempSync(path.join(tmpdir(), 'kustomize-test-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const deployment = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: web}',
    'spec: {template: {spec: {containers: [{name: web, image: web}]}}}',
  ].join('\n');

  function kustomization(name: string, body: string): string {
    const dir = path.join(scratch, name);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'web.yaml'), deployment);
    writeFileSync(path.join(dir, 'kustomization.yaml'), `resources: [web.yaml]\n${body}`);
    return dir;
  }

  it.each([
    ['an unsupported field', 'unknown-field', 'namePrefix: x-\n', /namePrefix.*not supported/],
    [
      'a list in a strategic-merge patch',
      'smp-list',
      'patches:\n  - patch: |-\n      {apiVersion: apps/v1, kind: Deployment, metadata: {name: web}, spec: {template: {spec: {containers: []}}}}\n',
      /list "containers"/,
    ],
    ['a patch that matches nothing', 'no-match', 'patches:\n  - target: {kind: Job}\n    patch: "[{op: remove, path: /spec}]"\n', /matches no resource/],
    [
      'a rename without allowNameChange',
      'rename',
      'patches:\n  - target: {kind: Deployment}\n    patch: "[{op: replace, path: /metadata/name, value: other}]"\n',
      /allowNameChange/,
    ],
    [
      'a JSON patch on a missing path',
      'missing-path',
      'patches:\n  - target: {kind: Deployment}\n    patch: "[{op: replace, path: /spec/replicas, value: 2}]"\n',
      /does not exist/,
    ],
  ])('refuses %s rather than render it differently from kustomize', (_what, name, body, message) => {
    const dir = kustomization(name, body);
    expect(() => renderKustomization(dir)).toThrow(KustomizeError);
    expect(() => renderKustomization(dir)).toThrow(message);
  });
});
