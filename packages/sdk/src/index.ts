export * from './client.ts';
export * from './connectivity.ts';
export * from './errors.ts';
export { ListPromise } from './pagination.ts';
export { DEFAULT_RETRY, backoffMs, parseRetryAfter, retryVerdict, type RetryPolicy, type RetryVerdict } from './retry.ts';
export { newIdempotencyKey } from './transport.ts';
export * from './events.ts';
export * from './webhooks.ts';
export type { EventType, ErrorCode, ErrorType, ErrorObject } from '@connectivity/contracts/public';
