import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@connectivity/contracts';
import type { z } from 'zod';

/**
 * What a cursor is bound to: the list it belongs to, the caller (account, environment) and the
 * filters of the first call. A cursor presented with any other binding fails its signature, so
 * it cannot be replayed against another account, environment, list or filter set. Arrays are
 * compared as given: normalise them (e.g. sort, upper-case) before binding.
 */
export type CursorBinding = Record<string, string | number | boolean | null | undefined | readonly string[]>;

export interface CursorCodec {
  /** An opaque, signed cursor for `position` (any JSON value), bound to `binding`. */
  encode(position: unknown, binding: CursorBinding): string;
  /**
   * The position in `cursor`, checked against `binding` and `schema`. A malformed, altered or
   * foreign cursor throws 400 `invalid_parameter` with `param: "cursor"`.
   */
  decode<S extends z.ZodTypeAny>(cursor: string, binding: CursorBinding, schema: S): z.infer<S>;
}

const VERSION = 1;
const SIGNATURE_BYTES = 32;
// Far above any real cursor; refuses absurd input before any decoding work.
const MAX_CURSOR_LENGTH = 2_048;
const CURSOR_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** The minimum length of a cursor secret: 32 characters, so it carries at least 128 bits. */
export const MIN_CURSOR_SECRET_LENGTH = 32;

export function createCursorCodec(secret: string): CursorCodec {
  if (secret.length < MIN_CURSOR_SECRET_LENGTH) {
    throw new TypeError(`a cursor secret needs at least ${MIN_CURSOR_SECRET_LENGTH} characters`);
  }
  const sign = (payload: string, binding: CursorBinding): Buffer =>
    createHmac('sha256', secret)
      .update(`cursor.v${VERSION}\n${payload}\n${canonicalBinding(binding)}`)
      .digest();

  return {
    encode(position, binding) {
      const payload = Buffer.from(JSON.stringify({ v: VERSION, p: position })).toString('base64url');
      return `${payload}.${sign(payload, binding).toString('base64url')}`;
    },
    decode(cursor, binding, schema) {
      if (cursor.length > MAX_CURSOR_LENGTH || !CURSOR_PATTERN.test(cursor)) throw invalidCursor();
      const [payload = '', signature = ''] = cursor.split('.');
      const presented = Buffer.from(signature, 'base64url');
      if (presented.length !== SIGNATURE_BYTES || !timingSafeEqual(presented, sign(payload, binding))) {
        throw invalidCursor();
      }
      // The signature held, so the payload is ours; parsing can still fail after a change of
      // position format, and that too is a cursor the caller must drop.
      let decoded: unknown;
      try {
        decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        throw invalidCursor();
      }
      if (typeof decoded !== 'object' || decoded === null || (decoded as { v?: unknown }).v !== VERSION) throw invalidCursor();
      const parsed = schema.safeParse((decoded as { p?: unknown }).p);
      if (!parsed.success) throw invalidCursor();
      return parsed.data as z.infer<typeof schema>;
    },
  };
}

function invalidCursor(): ApiError {
  return new ApiError('invalid_parameter', {
    param: 'cursor',
    message: 'The cursor is not valid for this request: pass `next_cursor` from the previous page unchanged, with the same filters and key.',
  });
}

/** Key order and absent values must not change the signature, so the binding is serialised canonically. */
function canonicalBinding(binding: CursorBinding): string {
  const entries = Object.keys(binding)
    .sort()
    .flatMap((key) => (binding[key] === undefined ? [] : [[key, binding[key]] as const]));
  return JSON.stringify(entries);
}
