/** A scalar field as text: forms and queries carry text, JSON may carry numbers; the first of a list. */
export function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return asText(value[0]);
  return undefined;
}
