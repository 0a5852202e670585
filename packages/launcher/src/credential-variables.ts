import { INTERNAL_CALLERS } from '@connectivity/contracts';

/** The deployables of `pnpm start:distributed`, each with a database login of its own. */
const DEPLOYABLES = ['gateway', 'catalogue', 'inventory', 'sandbox-simulator', 'notifications'] as const;
/** The NATS users: each deployable, and the migrations (which make the streams). */
const NATS_USERS = ['migrate', ...DEPLOYABLES] as const;

const variable = (name: string, suffix: string) => `${name.toUpperCase().replaceAll('-', '_')}_${suffix}`;

/** `GATEWAY_INTERNAL_TOKEN`, `GATEWAY_ADMIN_INTERNAL_TOKEN`, `INVENTORY_INTERNAL_TOKEN`, `SANDBOX_SIMULATOR_INTERNAL_TOKEN`. */
export const tokenVariableOf = (caller: string): string => variable(caller, 'INTERNAL_TOKEN');
/** `GATEWAY_DATABASE_URL`, `CATALOGUE_DATABASE_URL`, ...: the service's own login. */
export const databaseUrlVariableOf = (deployable: string): string => variable(deployable, 'DATABASE_URL');
/** `MIGRATE_NATS_PASSWORD`, `GATEWAY_NATS_PASSWORD`, ...: the password of the NATS user of that name. */
export const natsPasswordVariableOf = (user: string): string => variable(user, 'NATS_PASSWORD');

export const LAUNCHER_CREDENTIAL_VARIABLES = [
  ...INTERNAL_CALLERS.map(tokenVariableOf),
  ...DEPLOYABLES.map(databaseUrlVariableOf),
  ...NATS_USERS.map(natsPasswordVariableOf),
] as const;
