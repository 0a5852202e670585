import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger, requestContext } from '../src/index.ts';

describe('createLogger', () => {
  const manager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    manager.enable();
    context.setGlobalContextManager(manager);
  });
  afterAll(() => {
    context.disable();
  });

  function capture() {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ name: 'test', level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    return { logger, lines };
  }

  test('puts the request id and the active trace on every line', () => {
    const { logger, lines } = capture();
    const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };
    requestContext.run({ requestId: 'req_01jd8x7k2m9q4r5s6t7v8w9xyz' }, () => {
      context.with(trace.setSpanContext(context.active(), spanContext), () => logger.info('inside'));
    });
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', request_id: 'req_01jd8x7k2m9q4r5s6t7v8w9xyz', trace_id: spanContext.traceId, span_id: spanContext.spanId });
    expect(lines[1]).not.toHaveProperty('request_id');
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  test('redacts secrets wherever a stray object puts them', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        authorization: 'Bearer sk_test_secret',
        endpoint: { secret: 'whsec_abc' },
        req: { headers: { authorization: 'Bearer sk_live_x', 'x-internal-token': 'tok' } },
      },
      'careless',
    );
    const text = JSON.stringify(lines[0]);
    expect(text).not.toMatch(/sk_test_secret|whsec_abc|sk_live_x|"tok"/);
    expect(text).toContain('[redacted]');
  });
});
