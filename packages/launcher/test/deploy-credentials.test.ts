import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { INTERNAL_CALLERS } from '@connectivity/contracts';
import { secretWeakness } from '@connectivity/platform';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUS_USERS } from '../src/bus-users.ts';
import { databaseUrlVariableOf, natsPasswordVariableOf, tokenVariableOf } from '../src/credential-variables.ts';
import { CALLERS_OF, CREDENTIAL_OF } from '../src/internal-credentials.ts';
import { allServices } from '../src/services.ts';

/**
 * docker-compose.yml gives each process its own credentials and no one else's (records 0220 to
 * 0227), and deploy/make-secrets.sh makes every credential the file asks for.
 */
const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

interface ComposeService {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  secrets?: string[];
}
const compose = parseYaml(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
  secrets: Record<string, { file: string }>;
};
const env = (name: string) => compose.services[name]?.environment ?? {};
/** The variables a value takes from the environment (`${NAME}`, `${NAME:?...}`, `${NAME:-...}`). */
const variablesIn = (value: string) => [...value.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1] ?? '');
const schemaOf = (service: string) => allServices.find((s) => s.name === service)?.migrations.schema ?? '';
const passwordVariable = (service: string) => `${databaseUrlVariableOf(service).replace(/_URL$/, '')}_PASSWORD`;

/** The secret variables a deployable may read: its own and nothing else. */
function ownVariables(service: string): Set<string> {
  const own = new Set(['METRICS_TOKEN', passwordVariable(service), natsPasswordVariableOf(service)]);
  for (const caller of INTERNAL_CALLERS) if (CREDENTIAL_OF[caller].deployable === service) own.add(tokenVariableOf(caller));
  for (const caller of CALLERS_OF[service] ?? []) own.add(`${tokenVariableOf(caller)}_SHA256`);
  if (['gateway', 'catalogue', 'inventory', 'notifications'].includes(service)) own.add('CURSOR_SECRET');
  if (service === 'gateway') own.add('ADMIN_TOKEN').add('REDIS_PASSWORD');
  // The vendor's credentials: catalogue holds the supplier adapter.
  if (service === 'catalogue') own.add('AIRALO_CLIENT_SECRET').add('ESIMGO_API_KEY');
  if (service === 'notifications') own.add('WEBHOOK_SECRET_KEY').add('WEBHOOK_SECRET_KEY_PREVIOUS');
  return own;
}

describe('docker-compose.yml: each process its own credentials', () => {
  it.each(allServices.map((s) => s.name))('%s: its database login, its NATS user, its tokens and its callers, nothing of another', (service) => {
    const e = env(service);
    const url = new URL(e.DATABASE_URL?.replace(/\$\{[^}]+\}/, 'password') ?? '');
    expect(url.username).toBe(`connectivity_${schemaOf(service)}`);
    expect(variablesIn(e.DATABASE_URL ?? '')).toEqual([passwordVariable(service)]);
    expect(e.NATS_USER).toBe(service);
    expect(variablesIn(e.NATS_PASSWORD ?? '')).toEqual([natsPasswordVariableOf(service)]);
    const callers = (e.INTERNAL_CALLERS ?? '').split(',').filter(Boolean);
    expect(callers.map((entry) => entry.split('=')[0])).toEqual([...(CALLERS_OF[service] ?? [])]);
    expect(callers.map((entry) => variablesIn(entry))).toEqual((CALLERS_OF[service] ?? []).map((caller) => [`${tokenVariableOf(caller)}_SHA256`]));
    for (const caller of INTERNAL_CALLERS.filter((c) => CREDENTIAL_OF[c].deployable === service)) {
      expect(variablesIn(e[CREDENTIAL_OF[caller].variable] ?? ''), caller).toEqual([tokenVariableOf(caller)]);
    }
    const foreign = Object.values(e)
      .flatMap((value) => variablesIn(String(value)))
      .filter((name) => /(TOKEN|PASSWORD|SECRET|KEY)/.test(name) && !ownVariables(service).has(name));
    expect(foreign).toEqual([]);
  });

  it('runs the migrations as the database owner, granting each login its schema, and makes the streams as the NATS user that may', () => {
    const e = env('migrate');
    expect(e.DATABASE_URL).toMatch(/^postgres:\/\/connectivity:\$\{DATABASE_OWNER_PASSWORD[^}]*\}@postgres:5432\/connectivity$/);
    expect(e.DATABASE_RUNTIME_ROLE_PREFIX).toBe('connectivity_');
    expect(e.NATS_USER).toBe('migrate');
    expect(variablesIn(e.NATS_PASSWORD ?? '')).toEqual([natsPasswordVariableOf('migrate')]);
    // Streams made with as many copies as the services ask for: they may not change them.
    expect(e.NATS_STREAM_REPLICAS).toBe(env('gateway').NATS_STREAM_REPLICAS);
  });

  it('makes the logins once, when the volume is made: the owner and a login per service', () => {
    expect(compose.services.postgres?.volumes).toContain('./deploy/postgres/init-logins.sh:/docker-entrypoint-initdb.d/10-logins.sh:ro');
    const script = read('deploy/postgres/init-logins.sh');
    for (const service of allServices) {
      expect(script).toContain(`create role connectivity_${schemaOf(service.name)} login password`);
      expect(Object.keys(env('postgres'))).toContain(passwordVariable(service.name));
    }
    expect(script).toContain('create database connectivity owner connectivity;');
    expect(env('postgres').POSTGRES_USER).toBe('postgres');
  });

  it('runs NATS with the users of deploy/nats/users.conf, every password from the environment', () => {
    for (const node of ['nats-1', 'nats-2', 'nats-3']) {
      const s = compose.services[node];
      expect(s?.command?.slice(0, 2), node).toEqual(['-c', '/etc/nats/users.conf']);
      expect(s?.volumes, node).toContain('./deploy/nats/users.conf:/etc/nats/users.conf:ro');
      expect(Object.keys(s?.environment ?? {}).sort(), node).toEqual(BUS_USERS.map(natsPasswordVariableOf).sort());
    }
  });

  it("gives Grafana's admin password from a secret, and Prometheus the metrics token", () => {
    expect(env('grafana').GF_SECURITY_ADMIN_PASSWORD).toBeUndefined();
    expect(env('grafana').GF_SECURITY_ADMIN_PASSWORD__FILE).toBe('/run/secrets/grafana_admin_password');
    expect(compose.services.grafana?.secrets).toEqual(['grafana_admin_password']);
    expect(Object.keys(compose.secrets).sort()).toEqual(['grafana_admin_password', 'metrics_token']);
  });
});

describe('deploy/make-secrets.sh', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'make-secrets-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const envFile = path.join(scratch, 'connectivity.env');
  const secretsDir = path.join(scratch, 'secrets');
  const run = () => spawnSync(path.join(root, 'deploy/make-secrets.sh'), [envFile, secretsDir], { encoding: 'utf8', timeout: 30_000 });

  it('makes every credential docker-compose.yml asks for, each strong, each caller with the digest of its token; and never overwrites', () => {
    expect(run().status).toBe(0);
    const values = Object.fromEntries(
      readFileSync(envFile, 'utf8')
        .split('\n')
        .filter((line) => /^[A-Z]/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const required = new Set([...read('docker-compose.yml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1] ?? ''));
    expect([...required].filter((name) => values[name] === undefined)).toEqual([]);
    for (const [name, value] of Object.entries(values)) {
      if (name === 'CONNECTIVITY_SECRETS_DIR' || name.endsWith('_SHA256')) continue;
      expect(secretWeakness(value), name).toBeUndefined();
    }
    for (const caller of INTERNAL_CALLERS) {
      expect(values[`${tokenVariableOf(caller)}_SHA256`]).toBe(
        createHash('sha256')
          .update(values[tokenVariableOf(caller)] ?? '')
          .digest('hex'),
      );
    }
    // Every NATS password is a string to the NATS server, which reads it as a configuration value
    // (hex like `12e0…` would be a number, and the server would not start): a letter first, and the
    // server's own check of deploy/nats/users.conf with these values passes.
    const natsPasswords = Object.entries(values).filter(([name]) => name.endsWith('_NATS_PASSWORD'));
    expect(natsPasswords.length).toBeGreaterThan(0);
    for (const [name, value] of natsPasswords) expect(value, name).toMatch(/^[a-z]/);
    const checked = spawnSync('nats-server', ['-c', path.join(root, 'deploy/nats/users.conf'), '-t'], {
      encoding: 'utf8',
      env: { ...process.env, ...Object.fromEntries(natsPasswords) },
      timeout: 30_000,
    });
    expect(checked.error, 'nats-server must be on the PATH (it runs beside PostgreSQL for the tests)').toBeUndefined();
    expect(checked.status, checked.stderr).toBe(0);
    expect(readFileSync(path.join(secretsDir, 'metrics_token'), 'utf8')).toBe(values.METRICS_TOKEN);
    expect(secretWeakness(readFileSync(path.join(secretsDir, 'grafana_admin_password'), 'utf8'))).toBeUndefined();
    const again = run();
    expect(again.status).not.toBe(0);
    expect(existsSync(envFile)).toBe(true);
  });
});
