import { DEFAULT_BUS_NAMES, type BusNames } from '@connectivity/platform';
import { stringify } from 'yaml';
import { BUS_USERS, busPermissions } from './bus-users.ts';
import { natsPasswordVariableOf } from './credential-variables.ts';

/**
 * The `authorization` block of a NATS server's configuration: one user per deployable (and the
 * migrations), each with the permissions of bus-users.ts and a password given as `password(user)`
 * (a literal in quotes, or `$VARIABLE` for the server to read from its environment). No user, no
 * connection: a client without credentials is refused.
 */
export function authorizationConf(password: (user: string) => string, names: BusNames = DEFAULT_BUS_NAMES): string {
  const permissions = busPermissions(names);
  const list = (subjects: string[]) => `[${subjects.map((subject) => JSON.stringify(subject)).join(', ')}]`;
  const users = BUS_USERS.map((user) => {
    const { publish, subscribe } = permissions[user] ?? { publish: { allow: [] }, subscribe: { allow: [] } };
    return [
      '    {',
      `      user: ${JSON.stringify(user)}`,
      `      password: ${password(user)}`,
      '      permissions: {',
      `        publish: { allow: ${list(publish.allow)} }`,
      `        subscribe: { allow: ${list(subscribe.allow)} }`,
      '      }',
      '    }',
    ].join('\n');
  });
  return ['authorization {', '  users = [', users.join('\n'), '  ]', '}', ''].join('\n');
}

/** deploy/nats/users.conf: the passwords from the server's environment, one variable per user. */
export const deployedAuthorizationConf = (): string =>
  [
    '# The NATS users of the Connectivity Service and what each may publish and subscribe to, written by',
    '# `node packages/launcher/src/nats-conf.ts` from packages/launcher/src/bus-users.ts (a test checks',
    "# that it is current). Each password comes from the server's environment (docs/deploy.md).",
    authorizationConf((user) => `$${natsPasswordVariableOf(user)}`),
  ].join('\n');

/**
 * The users as the NATS Helm chart takes them (`config.merge.authorization` and `container.env`
 * of deploy/kubernetes/dependencies/nats-values.yaml): each password `<< $VARIABLE >>`, read by
 * the server from the Secret nats-users.
 */
export function helmAuthorizationValues(): string {
  const permissions = busPermissions();
  const users = BUS_USERS.map((user) => ({ user, password: `<< $${natsPasswordVariableOf(user)} >>`, permissions: permissions[user] }));
  const env = Object.fromEntries(
    BUS_USERS.map((user) => [natsPasswordVariableOf(user), { valueFrom: { secretKeyRef: { name: 'nats-users', key: natsPasswordVariableOf(user) } } }]),
  );
  return stringify({ config: { merge: { authorization: { users } } }, container: { env } }, { lineWidth: 0 });
}

// `node packages/launcher/src/nats-conf.ts` writes deploy/nats/users.conf; with `helm`, the values above.
if (import.meta.main) process.stdout.write(process.argv[2] === 'helm' ? helmAuthorizationValues() : deployedAuthorizationConf());
