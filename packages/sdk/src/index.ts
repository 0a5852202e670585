export * from './client.ts';
export * from './webhooks.ts';
export type { TypedEvent, TypedEventOf, EventType, ErrorCode } from '@connectivity/contracts';
