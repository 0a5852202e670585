/** catalogue owns the `catalogue` schema; its tables are always schema-qualified. */
export const SCHEMA = 'catalogue';
