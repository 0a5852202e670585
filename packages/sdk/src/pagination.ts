import type { List } from '@connectivity/contracts/public';

/**
 * What a `list` call returns: await it for the first page (the list envelope), or iterate it with
 * `for await` to walk every item of every page, following `next_cursor` until `has_more` is false.
 * Nothing is requested until it is awaited or iterated; each page is requested only when the
 * previous one has been consumed, so breaking out of the loop stops the requests.
 */
export class ListPromise<T> implements PromiseLike<List<T>>, AsyncIterable<T> {
  readonly #fetchPage: (cursor: string | undefined) => Promise<List<T>>;
  readonly #cursor: string | undefined;
  #first: Promise<List<T>> | undefined;

  constructor(fetchPage: (cursor: string | undefined) => Promise<List<T>>, cursor?: string) {
    this.#fetchPage = fetchPage;
    this.#cursor = cursor;
  }

  #firstPage(): Promise<List<T>> {
    this.#first ??= this.#fetchPage(this.#cursor);
    return this.#first;
  }

  then<R1 = List<T>, R2 = never>(
    onFulfilled?: ((page: List<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<List<T> | R> {
    return this.#firstPage().catch(onRejected);
  }

  /** Every page, the first one included. */
  async *pages(): AsyncGenerator<List<T>, void, undefined> {
    let page = await this.#firstPage();
    yield page;
    while (page.has_more && page.next_cursor) {
      page = await this.#fetchPage(page.next_cursor);
      yield page;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** The first `limit` items (all of them when there are fewer), in one array; stops requesting pages there. */
  async autoPagingToArray(options: { limit: number }): Promise<T[]> {
    const items: T[] = [];
    if (options.limit <= 0) return items;
    for await (const item of this) {
      items.push(item);
      if (items.length >= options.limit) break;
    }
    return items;
  }
}
