import type { Express, Response } from 'express';

/**
 * `res.json` as express answers it (`Content-Type: application/json; charset=utf-8`, the same
 * body and length), sent as bytes. Express's own sends the JSON as a string, and for a string
 * `res.send` parses the Content-Type it was just given and writes it again to add the charset
 * (the `content-type` package, on every response), then encodes the string on the socket. Every
 * answer of the API is JSON, so that was work on each one: ~10 % of the embedded form's main
 * thread per authenticated read (docs/decisions/0273-json-sent-as-bytes.md). A Content-Type set
 * before, a JSON setting of the app, or a body that is not JSON leave it to express as before.
 */
export function sendJsonAsBytes(app: Express): void {
  const json = app.response.json;
  app.response.json = function (this: Response, body: unknown) {
    if (this.get('Content-Type') !== undefined || this.app.get('json replacer') || this.app.get('json spaces') || this.app.get('json escape')) {
      return json.call(this, body);
    }
    const text = JSON.stringify(body) as string | undefined;
    if (text === undefined) return json.call(this, body);
    this.set('Content-Type', 'application/json; charset=utf-8');
    return this.send(Buffer.from(text));
  };
}
