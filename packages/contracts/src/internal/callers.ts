/**
 * Who calls the services, each with a credential of its own (records 0222, 0223): the gateway's
 * forward of public requests (and of vendors' callbacks), the gateway's admin listener (the
 * operator's commands), inventory (catalogue's supply) and the sandbox simulator (usage).
 */
export const INTERNAL_CALLERS = ['gateway', 'gateway-admin', 'inventory', 'sandbox-simulator'] as const;
export type InternalCaller = (typeof INTERNAL_CALLERS)[number];

export interface CallerMetadata {
  callers: readonly InternalCaller[];
}

/** A router's metadata naming the callers its routes admit: no other caller's credential reaches them. */
export const admits = (...callers: InternalCaller[]): CallerMetadata => ({ callers });

/**
 * The callers a service's route admits: its router's `callers`; a route without them is a public
 * route, reached only through the gateway's forward.
 */
export function callersOf(route: { metadata?: unknown } | undefined): readonly InternalCaller[] {
  const declared = (route?.metadata as Partial<CallerMetadata> | undefined)?.callers;
  return declared ?? ['gateway'];
}

export const isInternalCaller = (name: string): name is InternalCaller => (INTERNAL_CALLERS as readonly string[]).includes(name);
