// The floor under the gateway-overhead figure: an express 5 app that forwards every request to
// TARGET_URL over an undici pool (the gateway's own HTTP stack) and sends the answer back, and
// does nothing else: no key, no limit, no validation, no tracing. What the gateway adds on top
// of this is the edge's own work. Run as a child process on the same Node; prints its port.
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'undici';

const target = process.env.TARGET_URL;
if (!target) throw new Error('TARGET_URL is required');
const pool = new Pool(target, { connections: 4 });
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding']);

const app = express();
app.use(async (req, res, next) => {
  try {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && !HOP_BY_HOP.has(name)) headers[name] = value;
    const answer = await pool.request({ method: 'GET', path: req.originalUrl, headers });
    const body = Buffer.from(await answer.body.arrayBuffer());
    const type = answer.headers['content-type'];
    if (typeof type === 'string') res.setHeader('content-type', type);
    res.status(answer.statusCode).send(body);
  } catch (error) {
    next(error);
  }
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
