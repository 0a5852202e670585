export * from './client.ts';
export * from './errors.ts';
export { DEFAULT_RETRY, backoffMs, parseRetryAfter, retryVerdict, type RetryPolicy, type RetryVerdict } from './retry.ts';
export * from './webhooks.ts';
export type { TypedEvent, TypedEventOf, EventType, ErrorCode, ErrorType, ErrorObject } from '@connectivity/contracts';
