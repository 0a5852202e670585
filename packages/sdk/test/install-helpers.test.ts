import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import { createConnectivity, NotFoundError, UnexpectedResponseError, type Connectivity } from '../src/index.ts';
import { esimFixture } from './support/fixtures.ts';
import { apiError, json, startScriptedServer, type Step } from './support/scripted-server.ts';

// Every byte value, many of them invalid UTF-8: a body that only survives as bytes.
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 256 }, (_, i) => i)]);
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 33 33"><path d="M4 4.5h7"/></svg>';

const image =
  (type: string, body: Buffer | string): Step =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': type, 'request-id': 'req_0123456789abcdefghijkl' });
    res.end(body);
  };

describe('install helpers in the resource client', () => {
  let server: Awaited<ReturnType<typeof startScriptedServer>>;
  let connectivity: Connectivity;

  beforeAll(async () => {
    server = await startScriptedServer();
    connectivity = createConnectivity({ apiKey: 'sk_test_abc', baseUrl: server.url, maxRetries: 0 });
  });
  afterAll(() => server.close());

  test('esims.qrCode resolves to the PNG’s exact bytes, asking for image/png', async () => {
    server.play([image('image/png', PNG)]);
    const png = await connectivity.esims.qrCode('esim_01jd8x7k2m9q4r5s6t7v8w9xyz');
    expectTypeOf(png).toEqualTypeOf<Uint8Array>();
    expect(Buffer.from(png).equals(PNG)).toBe(true);
    expect(server.requests[0]).toMatchObject({ method: 'GET', url: '/v1/esim/esim_01jd8x7k2m9q4r5s6t7v8w9xyz/qr_code' });
    expect(server.requests[0]?.headers.accept).toBe('image/png');
  });

  test('esims.qrCode with format svg resolves to the SVG document’s text, asking for image/svg+xml', async () => {
    server.play([image('image/svg+xml', SVG)]);
    const svg = await connectivity.esims.qrCode('8988201000000000001', { format: 'svg' });
    expectTypeOf(svg).toEqualTypeOf<string>();
    expect(svg).toBe(SVG);
    expect(server.requests[0]?.headers.accept).toBe('image/svg+xml');
  });

  test('esims.qrCode throws the typed error of an error answer, and refuses an answer of another type', async () => {
    server.play([apiError('resource_not_found', { param: 'id', message: 'This eSIM has no activation code, so it has no QR code.' })]);
    const missing = await connectivity.esims.qrCode('esim_x').catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ code: 'resource_not_found', param: 'id' });

    server.play([json(200, { object: 'esim' })]);
    await expect(connectivity.esims.qrCode('esim_x')).rejects.toBeInstanceOf(UnexpectedResponseError);
    server.play([image('image/png', PNG)]);
    await expect(connectivity.esims.qrCode('esim_x', { format: 'svg' })).rejects.toBeInstanceOf(UnexpectedResponseError);
    await expect(connectivity.esims.qrCode('')).rejects.toThrow(TypeError);
  });

  test('esims.list filters by metadata as metadata[key]=value on every page', async () => {
    server.play([
      json(200, { object: 'list', data: [esimFixture(1)], has_more: true, next_cursor: 'c2' }),
      json(200, { object: 'list', data: [esimFixture(2)], has_more: false, next_cursor: null }),
    ]);
    const ids: string[] = [];
    for await (const esim of connectivity.esims.list({ limit: 1, metadata: { batch: 'b-7', 'site name': 'nörth' } })) ids.push(esim.id);
    expect(ids).toHaveLength(2);
    const first = new URL(server.requests[0]?.url ?? '', 'http://x');
    expect(Object.fromEntries(first.searchParams)).toEqual({ limit: '1', 'metadata[batch]': 'b-7', 'metadata[site name]': 'nörth' });
    expect(Object.fromEntries(new URL(server.requests[1]?.url ?? '', 'http://x').searchParams)).toMatchObject({ 'metadata[batch]': 'b-7', cursor: 'c2' });
  });

  test('esims.create and esims.update send metadata in the body', async () => {
    server.play([], json(200, { ok: true }));
    await connectivity.esims.create({ bundle: 'esim_5GB_30D_EU', metadata: { order_ref: 'A-1' } });
    await connectivity.esims.update('esim_1', { metadata: { order_ref: '' } });
    expect(server.requests.map((request) => request.body)).toEqual([
      '{"bundle":"esim_5GB_30D_EU","metadata":{"order_ref":"A-1"}}',
      '{"metadata":{"order_ref":""}}',
    ]);
  });
});
