import type { RequestHandler } from 'express';

/**
 * Headers every answer of a public or operator listener carries unless a route says otherwise:
 * `nosniff`, so no browser reads a JSON answer as a page or a script, and `no-store`, so no
 * cache (a browser's, a proxy's) keeps an answer that may show an activation code or a secret.
 * A route that may be kept (the catalogue, the reference's assets) sets its own Cache-Control.
 */
export const defaultResponseHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  next();
};
