/** sandbox-simulator owns the `sandbox_simulator` schema; its tables are always schema-qualified. */
export const SCHEMA = 'sandbox_simulator';
