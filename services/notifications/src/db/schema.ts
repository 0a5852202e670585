/** notifications owns the `notifications` schema; its tables are always schema-qualified. */
export const SCHEMA = 'notifications';
