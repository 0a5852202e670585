/** The gateway owns the `gateway` schema; its tables are always schema-qualified. */
export const SCHEMA = 'gateway';
