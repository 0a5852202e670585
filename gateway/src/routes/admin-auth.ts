import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import type { RequestHandler } from 'express';
import { bearerToken } from '../domain/api-key-secret.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The admin API takes only the operator token, compared in constant time on hashes. */
export function requireAdminToken(token: string): RequestHandler {
  const expected = digest(token);
  return (req, _res, next) => {
    const presented = bearerToken(req.get('authorization'));
    if (presented === undefined) {
      next(new ApiError('key_missing', { message: 'The admin API needs "Authorization: Bearer <ADMIN_TOKEN>".' }));
      return;
    }
    if (!timingSafeEqual(digest(presented), expected)) {
      next(new ApiError('key_invalid', { message: 'The admin token is not valid.' }));
      return;
    }
    next();
  };
}
