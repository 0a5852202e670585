import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response, Router } from 'express';
import type { AiraloContext } from './context.ts';
import { invalidParameters, unauthenticated } from './errors.ts';
import { field, text, withinLimit } from './http.ts';

const sameSecret = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** POST /v2/token: OAuth2 client credentials, as JSON, urlencoded or multipart (AIR-4). */
export function tokenRoute(ctx: AiraloContext, router: Router): void {
  router.post('/token', (req: Request, res: Response) => {
    const clientId = text(field(req, 'client_id'));
    const clientSecret = text(field(req, 'client_secret'));
    const grantType = text(field(req, 'grant_type'));
    const errors: Record<string, string> = {};
    if (!clientId) errors.client_id = 'The client id field is required.';
    if (!clientSecret) errors.client_secret = 'The client secret field is required.';
    if (!grantType) errors.grant_type = 'The grant type field is required.';
    else if (grantType !== 'client_credentials') errors.grant_type = 'The selected grant type is invalid.';
    if (Object.keys(errors).length || !clientId || !clientSecret) return invalidParameters(res, errors);
    if (!withinLimit(ctx, res, `token:${clientId}`, ctx.settings.rateLimits.token)) return;
    if (clientId !== ctx.settings.clientId) return invalidParameters(res, { client_id: 'The selected client id is invalid.' });
    // AIR-6: the document files this answer under an "x-422" key; its example title says 401.
    if (!sameSecret(clientSecret, ctx.settings.clientSecret)) {
      res.status(401).json({ data: [], meta: { message: 'Client authentication failed' } });
      return;
    }
    const accessToken = randomBytes(48).toString('base64url');
    ctx.state.tokens[accessToken] = { client_id: clientId, expires_at: ctx.clock.now() + ctx.settings.tokenTtlSeconds * 1000 };
    ctx.save();
    res.json({ data: { token_type: 'Bearer', expires_in: ctx.settings.tokenTtlSeconds, access_token: accessToken }, meta: { message: 'success' } });
  });
}

/** Every other route needs `Authorization: Bearer <token>` with a token that has not expired. */
export function requireToken(ctx: AiraloContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    const token = match ? ctx.state.tokens[match[1]!.trim()] : undefined;
    if (!token || token.expires_at <= ctx.clock.now()) return unauthenticated(res);
    res.locals.accessToken = match![1]!.trim();
    res.locals.clientId = token.client_id;
    next();
  };
}
