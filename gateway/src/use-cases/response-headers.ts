import type { Response } from 'express';

/** Sets each header on the answer (without express's `res.set`, which does more per header). */
export function setHeaders(res: Response, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
}
