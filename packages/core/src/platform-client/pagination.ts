// Lists: `await client.agents.list()` is one page `{data, has_more}`; `for await (const agent of
// client.agents.list())` walks every page with `starting_after` (the spec's cursor: the id of the last
// item received, or a template's slug). The first page is fetched once, whichever way it is used.
import type { Page } from "./types";

export type Cursor = string | number;

export class PagePromise<T> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  private first: Promise<Page<T>> | undefined;

  constructor(
    private readonly fetchPage: (startingAfter: Cursor | undefined) => Promise<Page<T>>,
    private readonly cursorOf: (item: T) => Cursor,
    private readonly startingAfter?: Cursor,
  ) {}

  private firstPage(): Promise<Page<T>> {
    this.first ??= this.fetchPage(this.startingAfter);
    return this.first;
  }

  then<R1 = Page<T>, R2 = never>(
    onFulfilled?: ((page: Page<T>) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.firstPage().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<Page<T> | R> {
    return this.firstPage().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page<T>> {
    return this.firstPage().finally(onFinally);
  }

  /** Every page, from this one on. */
  async *pages(): AsyncGenerator<Page<T>> {
    let page = await this.firstPage();
    for (;;) {
      yield page;
      const last = page.data.at(-1);
      if (!page.has_more || last === undefined) return;
      page = await this.fetchPage(this.cursorOf(last));
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page.data;
  }
}

/** Every item of every page, in order. */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
