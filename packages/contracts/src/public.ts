// The public API alone: routes, schemas, errors, events and headers, without the internal and admin
// contracts or the OpenAPI generator. The SDK bundles what it uses of it into its published build.

export * from './errors/catalogue.ts';
export * from './errors/messages.ts';
export * from './errors/schema.ts';
export * from './errors/items.ts';
export * from './errors/guides.ts';

export * from './events/types.ts';
export * from './events/data.ts';
export * from './events/catalogue.ts';
export * from './events/typed.ts';

export * from './schemas/enums.ts';
export * from './schemas/primitives.ts';
export * from './schemas/list.ts';
export * from './schemas/metadata.ts';
export * from './schemas/esim.ts';
export * from './schemas/bundle.ts';
export * from './schemas/event.ts';
export * from './schemas/order.ts';
export * from './schemas/api-key.ts';
export * from './schemas/webhook-endpoint.ts';
export * from './schemas/webhook-attempt.ts';
export * from './schemas/version.ts';
export * from './schemas/event-type.ts';
export * from './schemas/error-code.ts';
export * from './schemas/replay.ts';
export * from './schemas/test-clock.ts';
export * from './schemas/request-log.ts';
export * from './schemas/balance.ts';
export * from './schemas/refund.ts';
export * from './schemas/topup.ts';

export * from './headers.ts';

export * from './routes/metadata.ts';
export * from './routes/params.ts';
export * from './routes/esim.ts';
export * from './routes/balance.ts';
export * from './routes/topups.ts';
export * from './routes/events.ts';
export * from './routes/request-logs.ts';
export * from './routes/test-helpers.ts';
export * from './routes/test-clocks.ts';
export * from './routes/webhooks.ts';
export * from './routes/contract.ts';
