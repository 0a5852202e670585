// The baseline every figure is divided by: a plain express 5 app, nothing else (no tracing).
// Run as a child process on the same Node; prints its port on stdout.
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.get('/', (_req, res) => {
  res.send('Hello World!');
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));
