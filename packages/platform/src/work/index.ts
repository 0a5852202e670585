export * from './claim.ts';
export * from './poller.ts';
export * from './signals.ts';
export * from './links.ts';
export * from './batcher.ts';
export * from './sweep.ts';
export * from './pool.ts';
export * from './backoff.ts';
