import { z } from 'zod';
import { titled } from './titled.ts';

/** The cursor list envelope around `item`; `name` becomes the OpenAPI component name. */
export function listOf<T extends z.ZodTypeAny>(name: string, item: T) {
  return titled(
    name,
    z.object({
      object: z.literal('list'),
      data: z.array(item),
      has_more: z.boolean(),
      next_cursor: z.string().nullable().describe('Pass as `cursor` to get the next page; null when `has_more` is false.'),
    }),
  );
}

export type List<T> = { object: 'list'; data: T[]; has_more: boolean; next_cursor: string | null };
