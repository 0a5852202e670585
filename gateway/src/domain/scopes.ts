import { SCOPES, type Scope } from '@connectivity/contracts';

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/** A key issued without a scope list has every scope (record 0254). Unknown names are refused. */
export function normaliseScopes(requested: readonly string[] | undefined): Scope[] {
  if (requested === undefined || requested.length === 0) return [...SCOPES];
  const unknown = requested.filter((scope) => !isScope(scope));
  if (unknown.length > 0) throw new RangeError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  // Catalogue order, no duplicates, so records read the same however the operator typed them.
  return SCOPES.filter((scope) => requested.includes(scope));
}

/** Every scope the route needs must be on the key. */
export const hasScopes = (granted: readonly string[], required: readonly string[]): boolean => required.every((scope) => granted.includes(scope));
