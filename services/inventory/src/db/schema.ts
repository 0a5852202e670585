/** inventory owns the `inventory` schema; its tables are always schema-qualified. */
export const SCHEMA = 'inventory';
