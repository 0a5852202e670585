import express, { type Express } from 'express';
import request from 'supertest';
import { describe, expect, test } from 'vitest';
import { sendJsonAsBytes } from '../src/http/json-as-bytes.ts';

/** The same routes on an app with express's own `res.json` and on one with sendJsonAsBytes. */
function apps(configure: (app: Express) => void = () => undefined): { plain: Express; bytes: Express } {
  const build = (bytes: boolean) => {
    const app = express();
    app.set('etag', false);
    configure(app);
    if (bytes) sendJsonAsBytes(app);
    app.get('/object', (_req, res) => res.status(201).json({ name: 'Ünïcødé ✓', list: [1, null, true], nested: { empty: '' } }));
    app.get('/string', (_req, res) => res.json('just text'));
    app.get('/null', (_req, res) => res.json(null));
    app.get('/undefined', (_req, res) => res.json(undefined));
    app.get('/problem', (_req, res) => res.type('application/problem+json').json({ type: 'about:blank' }));
    return app;
  };
  return { plain: build(false), bytes: build(true) };
}

const answer = async (app: Express, method: 'get' | 'head', path: string) => {
  const agent = request(app);
  const response = await (method === 'get' ? agent.get(path) : agent.head(path)).buffer(true).parse((res, done) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => done(null, Buffer.concat(chunks)));
  });
  const body = response.body as Buffer;
  return { status: response.status, type: response.headers['content-type'], length: response.headers['content-length'], body: body.toString('utf8') };
};

describe('res.json sent as bytes (record 0273)', () => {
  test.each(['/object', '/string', '/null', '/undefined', '/problem'])(
    'answers %s exactly as express does: status, Content-Type, length and body',
    async (path) => {
      const { plain, bytes } = apps();
      const expected = await answer(plain, 'get', path);
      expect(await answer(bytes, 'get', path)).toEqual(expected);
      expect(await answer(bytes, 'head', path)).toEqual(await answer(plain, 'head', path));
    },
  );

  test('sends the JSON of an object as one UTF-8 body with its length in bytes', async () => {
    const { bytes } = apps();
    const got = await answer(bytes, 'get', '/object');
    expect(got.type).toBe('application/json; charset=utf-8');
    expect(Number(got.length)).toBe(Buffer.byteLength(got.body));
    expect(JSON.parse(got.body)).toEqual({ name: 'Ünïcødé ✓', list: [1, null, true], nested: { empty: '' } });
  });

  test('hands express bytes, so it never parses the Content-Type again to add the charset', async () => {
    const { bytes } = apps();
    const sent: string[] = [];
    const send = bytes.response.send;
    bytes.response.send = function (this: express.Response, chunk?: unknown) {
      sent.push(Buffer.isBuffer(chunk) ? 'bytes' : typeof chunk);
      return send.call(this, chunk);
    };
    await answer(bytes, 'get', '/object');
    expect(sent).toEqual(['bytes']);
  });

  test("leaves an app's own JSON settings to express", async () => {
    const { plain, bytes } = apps((app) => app.set('json spaces', 2));
    expect(await answer(bytes, 'get', '/object')).toEqual(await answer(plain, 'get', '/object'));
    expect((await answer(bytes, 'get', '/object')).body).toContain('\n  "name"');
  });
});
