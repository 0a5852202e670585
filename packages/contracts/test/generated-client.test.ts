import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, buildOpenApiDocument } from '../src/index.ts';
import { esim, order } from './fixtures.ts';
import { Recorder } from './generated-client/recorder.ts';
import { ClientWorkspace } from './generated-client/workspace.ts';

// Issue 2: openapi.json must be complete enough that a stranger's generator makes a working client.
// The stranger here is openapi-typescript (types) + openapi-fetch (calls), both with default options.

let workspace: ClientWorkspace;
beforeAll(async () => {
  workspace = await ClientWorkspace.create(buildOpenApiDocument({ serverUrl: 'https://api.example.test' }));
});
afterAll(async () => {
  await workspace?.remove();
});

describe('a client generated from openapi.json', () => {
  it('type-checks a program that lists, orders, changes state and simulates usage', () => {
    expect(workspace.typeErrors('client.ts').map((error) => error.message)).toEqual([]);
  });

  it('refuses each wrong call as a type error, and only those', async () => {
    const source = (await readFile(workspace.file('wrong-calls.ts'), 'utf8')).split('\n');
    const marked = source.flatMap((line, index) => (line.includes('// wrong:') ? [index + 1] : []));
    expect(marked.length).toBeGreaterThanOrEqual(8);
    const errors = workspace.typeErrors('wrong-calls.ts');
    expect(errors.filter((error) => !marked.includes(error.line)).map((error) => error.message)).toEqual([]);
    expect([...new Set(errors.map((error) => error.line))].sort((a, b) => a - b)).toEqual(marked);
  });

  it('puts path, query, headers and JSON bodies on the wire as the API reads them', async () => {
    const suspended = { ...esim, state: 'suspended' };
    const recorder = await Recorder.start({
      'GET /v1/esim': { status: 200, body: { object: 'list', data: [esim], has_more: false, next_cursor: null } },
      'POST /v1/esim': { status: 201, body: order },
      [`PATCH /v1/esim/${esim.id}`]: { status: 200, body: suspended },
      'POST /v1/test/usage': { status: 200, body: { ...esim, data_used_bytes: esim.data_used_bytes + 1_048_576 } },
      'GET /v1/esim/esim_unknown': { status: 404, body: new ApiError('resource_not_found').toBody('https://api.example.test') },
    });
    try {
      const { stdout } = await promisify(execFile)(process.execPath, [workspace.file('client.ts'), recorder.url], { timeout: 20_000 });
      expect(JSON.parse(stdout)).toEqual({
        listed: esim.id,
        orderStatus: 201,
        ordered: order.esims.map((item) => item.state),
        state: 'suspended',
        used: esim.data_used_bytes + 1_048_576,
        missing: { status: 404, code: 'resource_not_found' },
      });

      const wire = recorder.requests.map(({ method, path, query, body }) => ({ method, path, query, body }));
      expect(wire).toEqual([
        { method: 'GET', path: '/v1/esim', query: { limit: '5' }, body: undefined },
        { method: 'POST', path: '/v1/esim', query: {}, body: { bundle: 'esim_5GB_30D_EU', quantity: 2 } },
        { method: 'PATCH', path: `/v1/esim/${esim.id}`, query: {}, body: { state: 'suspended' } },
        { method: 'POST', path: '/v1/test/usage', query: {}, body: { esim: esim.iccid, bytes: 1_048_576 } },
        { method: 'GET', path: '/v1/esim/esim_unknown', query: {}, body: undefined },
      ]);
      for (const request of recorder.requests) {
        expect(request.headers.authorization).toBe('Bearer sk_test_stranger0000000000000000000000');
        if (request.body !== undefined) expect(request.headers['content-type']).toMatch(/^application\/json/);
      }
      expect(recorder.requests.map((request) => request.headers['idempotency-key'])).toEqual([
        undefined,
        'order-2026-0001',
        'suspend-2026-0001',
        'usage-2026-0001',
        undefined,
      ]);
      expect(recorder.requests[2]?.headers['service-version']).toBe('2026-09-01');
    } finally {
      await recorder.close();
    }
  });
});
