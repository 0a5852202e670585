/** The list envelope of the specification. `next_cursor` is null when there is no next page. */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * Builds a page from `limit + 1` fetched items: the extra one only tells whether more exist,
 * and the cursor points after the last item shown.
 */
export function toPage<T>(fetched: T[], limit: number, cursorAfter: (last: T) => string): ListPage<T> {
  const data = fetched.slice(0, limit);
  const last = data.at(-1);
  const hasMore = fetched.length > limit && last !== undefined;
  return { object: 'list', data, has_more: hasMore, next_cursor: hasMore ? cursorAfter(last) : null };
}
