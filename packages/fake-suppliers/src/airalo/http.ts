import type { Request, Response } from 'express';
import type { RateLimitRule } from '../shared/rate-limiter.ts';
import { asText } from '../shared/text.ts';
import type { AiraloContext } from './context.ts';
import { tooManyAttempts } from './errors.ts';

/** A form or JSON field; form clients send arrays as `name[]`. */
export function field(req: Request, name: string): unknown {
  const body = (req.body ?? {}) as Record<string, unknown>;
  return body[name] ?? body[`${name}[]`];
}

export const text = asText;

/** A list field: a form may send one value where JSON sends an array. */
export const list = (value: unknown): string[] => (value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String));

export const includes = (req: Request): Set<string> =>
  new Set(
    (asText(req.query.include) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

/** Counts a request against a documented limit; answers the vendor's 429 and returns false when over. */
export function withinLimit(ctx: AiraloContext, res: Response, key: string, rule: RateLimitRule): boolean {
  const now = ctx.clock.now();
  const verdict = ctx.limiter.hit(key, rule, now);
  if (verdict.allowed) {
    res.set({ 'X-RateLimit-Limit': String(verdict.limit), 'X-RateLimit-Remaining': String(verdict.remaining) });
    return true;
  }
  tooManyAttempts(res, verdict, now);
  return false;
}

export interface Page<T> {
  items: T[];
  meta: { message: string; current_page: number; from: number; last_page: number; path: string; per_page: string; to: number; total: number };
  links: { first: string; last: string; prev: string | null; next: string | null };
}

/** Laravel-style pagination, as Airalo's list endpoints answer it (`per_page` a string). */
export function paginate<T>(ctx: AiraloContext, req: Request, items: T[], limit: number, page: number): Page<T> {
  const lastPage = Math.max(1, Math.ceil(items.length / limit));
  const start = (page - 1) * limit;
  const slice = items.slice(start, start + limit);
  const path = `${ctx.origin()}${req.baseUrl}${req.path}`;
  const url = (p: number) => {
    const query = new URLSearchParams(Object.entries(req.query).filter(([k]) => k !== 'page') as [string, string][]);
    query.set('page', String(p));
    return `${path}?${query.toString()}`;
  };
  return {
    items: slice,
    meta: {
      message: 'success',
      current_page: page,
      from: slice.length ? start + 1 : 0,
      last_page: lastPage,
      path,
      per_page: String(limit),
      to: start + slice.length,
      total: items.length,
    },
    links: { first: url(1), last: url(lastPage), prev: page > 1 ? url(page - 1) : null, next: page < lastPage ? url(page + 1) : null },
  };
}

/** `filter[created_at]` as Airalo writes it, "Y-m-d - Y-m-d": does a "Y-m-d H:i:s" fall inside? */
export function createdWithin(range: string | undefined): (createdAt: string) => boolean {
  if (!range) return () => true;
  const [from, to] = range.split(' - ').map((d) => d.trim());
  return (createdAt) => (!from || createdAt.slice(0, 10) >= from) && (!to || createdAt.slice(0, 10) <= to);
}

/** Reads `limit` and `page`; answers Airalo's 422 and returns undefined when they are not integers. */
export function pageParameters(req: Request, defaultLimit: number): { limit: number; page: number; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const read = (name: 'limit' | 'page', fallback: number) => {
    const raw = asText(req.query[name]);
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      errors[name] = `The ${name} must be an integer.`;
      return fallback;
    }
    return Number(raw);
  };
  return { limit: read('limit', defaultLimit), page: read('page', 1), errors };
}
