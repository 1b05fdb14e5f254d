import { invalidFieldValue } from './errors.ts';
import type { FilterPredicate } from './list-filter.ts';
import { boolParam } from './query-params.ts';

/** ListQuery is the parsed common query of compute list methods. */
export interface ListQuery {
  readonly maxResults: number;
  /** How many matching items earlier pages held, decoded from an offset pageToken (creationTimestamp order). */
  readonly offset: number;
  /** The store key of the last item of the previous page, decoded from a key pageToken (name order). */
  readonly after: string | undefined;
  readonly filter: FilterPredicate;
  readonly orderBy: 'name' | 'creationTimestamp desc' | undefined;
}

/** MAX_RESULTS is compute's largest (and default) page size. */
export const MAX_RESULTS = 500;

/** parseListQuery reads maxResults, pageToken, filter and orderBy with the real limits. */
export async function parseListQuery(query: Record<string, unknown>): Promise<ListQuery> {
  let maxResults = MAX_RESULTS;
  const rawMax = query['maxResults'];
  if (rawMax !== undefined) {
    const text = String(rawMax);
    if (!/^\d+$/.test(text)) throw invalidFieldValue('maxResults', text, 'Must be an integer.');
    maxResults = Number(text);
    if (maxResults > MAX_RESULTS) throw invalidFieldValue('maxResults', text, `Must be less than or equal to ${MAX_RESULTS}`);
    if (maxResults === 0) maxResults = MAX_RESULTS;
  }
  const pageToken = query['pageToken'];
  const position = typeof pageToken === 'string' && pageToken !== '' ? decodePageToken(pageToken) : { offset: 0, after: undefined };
  const filterText = typeof query['filter'] === 'string' ? query['filter'] : '';
  const orderByText = typeof query['orderBy'] === 'string' ? query['orderBy'].trim() : '';
  let orderBy: ListQuery['orderBy'];
  if (orderByText !== '') {
    if (orderByText === 'name' || orderByText === 'creationTimestamp desc') orderBy = orderByText;
    else throw invalidFieldValue('orderBy', orderByText, 'Currently, only sorting by name or creationTimestamp desc is supported.');
  }
  // Nothing here fails partially, but a value that is not a bool is still the real 400.
  boolParam(query, 'returnPartialSuccess');
  // The filter language (and its regular-expression engine) loads with the first list, not at start-up.
  const { compileFilter } = await import('./list-filter.ts');
  return { maxResults, ...position, filter: compileFilter(filterText), orderBy };
}

/** encodePageToken makes the opaque token that resumes a list at `offset` (used where order is not key order). */
export function encodePageToken(offset: number): string {
  return Buffer.from(`o:${offset}`, 'utf8').toString('base64url');
}

/** encodeKeyToken makes the opaque token that resumes a key-ordered list after the store key `key`. */
export function encodeKeyToken(key: string): string {
  return Buffer.from(`k:${key}`, 'utf8').toString('base64url');
}

function decodePageToken(token: string): { offset: number; after: string | undefined } {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const offset = /^o:(\d{1,9})$/.exec(text);
  if (offset !== null && encodePageToken(Number(offset[1])) === token) return { offset: Number(offset[1]), after: undefined };
  if (text.startsWith('k:') && text.length > 2 && encodeKeyToken(text.slice(2)) === token) return { offset: 0, after: text.slice(2) };
  throw invalidFieldValue('pageToken', token, 'The page token is invalid.');
}

/** Keyed is one stored resource with its store key, the order lists come in. */
export interface Keyed<T> {
  readonly key: string;
  readonly value: T;
}

/** PagedSource reads one collection in key order: at most `limit` resources after the key `after`. */
export type PagedSource<T> = (after: string | undefined, limit: number | undefined) => Promise<readonly Keyed<T>[]>;

/** arraySource serves an in-memory collection, in its given (key) order, as a PagedSource. */
export function arraySource<T>(values: readonly T[], keyOf: (value: T) => string): PagedSource<T> {
  const keyed = values.map((value) => ({ key: keyOf(value), value }));
  return async (after, limit) => {
    const rest = after === undefined ? keyed : keyed.filter((entry) => entry.key > after);
    return limit === undefined ? rest : rest.slice(0, limit);
  };
}

/** KeyedPage is one page of matching resources, rendered, and the token for the next. */
export interface KeyedPage<T> {
  readonly items: { readonly value: T; readonly item: Record<string, unknown> }[];
  readonly nextPageToken: string | undefined;
}

/** SCAN_BATCH bounds one read while a filtered page is being filled. */
const SCAN_BATCH = 1000;

/**
 * pageFrom cuts one page from a key-ordered source. In name order (the default) it reads from the
 * token's key onwards, a batch at a time, only until the page is full, so a page costs what it
 * holds (plus what the filter skipped), not the whole collection. `creationTimestamp desc` needs
 * every resource to sort, so that order reads them all.
 */
export async function pageFrom<T>(source: PagedSource<T>, render: (value: T) => Record<string, unknown>, query: ListQuery): Promise<KeyedPage<T>> {
  if (query.orderBy === 'creationTimestamp desc') {
    const all = (await source(undefined, undefined)).map(({ value }) => ({ value, item: render(value) }));
    const page = paginate(all, query, (entry) => entry.item);
    return { items: page.items, nextPageToken: page.nextPageToken };
  }
  const items: { value: T; item: Record<string, unknown>; key: string }[] = [];
  let cursor = query.after;
  // One more than the page, to know whether another page follows.
  const batch = Math.min(query.maxResults + 1, SCAN_BATCH);
  for (;;) {
    const records = await source(cursor, batch);
    for (const { key, value } of records) {
      const item = render(value);
      if (!query.filter(item)) continue;
      if (items.length === query.maxResults) return { items, nextPageToken: encodeKeyToken(items.at(-1)!.key) };
      items.push({ key, value, item });
    }
    if (records.length < batch) return { items, nextPageToken: undefined };
    cursor = records.at(-1)!.key;
  }
}

/** paginate filters entries (given in name order), orders them as asked, and cuts one page at the token's offset. */
export function paginate<E>(
  entries: readonly E[],
  query: ListQuery,
  itemOf: (entry: E) => Record<string, unknown>,
): { items: E[]; nextPageToken: string | undefined } {
  const matching = entries.filter((entry) => query.filter(itemOf(entry)));
  if (query.orderBy === 'creationTimestamp desc') {
    // Chronologically: the texts carry the Pacific offset, which changes with daylight saving time.
    matching.sort((a, b) => Date.parse(String(itemOf(b)['creationTimestamp'])) - Date.parse(String(itemOf(a)['creationTimestamp'])));
  }
  const end = query.offset + query.maxResults;
  return { items: matching.slice(query.offset, end), nextPageToken: end < matching.length ? encodePageToken(end) : undefined };
}
