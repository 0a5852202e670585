import { idempotencyStore } from '@connectivity/platform';

export type { StoredResponse } from '@connectivity/platform';

/** The gateway's idempotency records: they serialise duplicates and replay answers at the edge. */
export const gatewayIdempotency = idempotencyStore('gateway.idempotency_records');
