/**
 * Paginated lists (client-go's tools/pager): page through a collection with limit/continue.
 *
 * Works over any `ResourceClient` (the HTTP client or the fake one). After the first page the
 * resourceVersion and resourceVersionMatch are dropped (the continue token carries the snapshot;
 * sending both is a 400). `listAll`, like client-go's ListPager.List with FullListIfExpired, falls
 * back to one unpaginated list when a continue token has expired (410 Expired).
 */
import { isResourceExpired } from "../apimachinery/errors.js";
import type { KubeList, TypedObject } from "../apimachinery/types.js";
import type { ListOptions, ResourceClient } from "./interfaces.js";

/** client-go's pager default page size. */
export const DEFAULT_PAGE_SIZE = 500;

export interface PagerOptions {
  /** Items per page when the list options give no limit; default 500. */
  pageSize?: number;
}

export type PageLister<T extends TypedObject> = Pick<ResourceClient<T>, "list">;

/** The pages of a list, in order. An expired continue token is thrown (410 Expired). */
export async function* listPages<T extends TypedObject>(
  client: PageLister<T>,
  opts: ListOptions = {},
  pager: PagerOptions = {},
): AsyncGenerator<KubeList<T>> {
  let options: ListOptions = { ...opts, limit: opts.limit && opts.limit > 0 ? opts.limit : (pager.pageSize ?? DEFAULT_PAGE_SIZE) };
  for (;;) {
    const page = await client.list(options);
    yield page;
    const next = page.metadata?.continue;
    if (!next) return;
    options = { ...options, continue: next, resourceVersion: undefined, resourceVersionMatch: undefined };
  }
}

/**
 * Every item of a collection, read page by page, as one list (metadata of the last page, without
 * a continue token). Falls back to a single full list if a continue token expires midway.
 */
export async function listAll<T extends TypedObject>(
  client: PageLister<T>,
  opts: ListOptions = {},
  pager: PagerOptions = {},
): Promise<KubeList<T>> {
  const items: T[] = [];
  let last: KubeList<T> | undefined;
  let paginated = false;
  try {
    for await (const page of listPages(client, opts, pager)) {
      items.push(...page.items);
      last = page;
      paginated = true;
    }
  } catch (err) {
    if (!paginated || !isResourceExpired(err)) throw err;
    // The snapshot expired while paging: one full list at the originally requested version.
    return client.list({ ...opts, limit: undefined, continue: undefined });
  }
  const out: KubeList<T> = { ...last!, items };
  if (out.metadata) {
    const { continue: _c, remainingItemCount: _r, ...rest } = out.metadata;
    out.metadata = rest;
  }
  return out;
}

/** Every item of a collection, page by page, as an async iterable. */
export async function* listItems<T extends TypedObject>(
  client: PageLister<T>,
  opts: ListOptions = {},
  pager: PagerOptions = {},
): AsyncGenerator<T> {
  for await (const page of listPages(client, opts, pager)) yield* page.items;
}
