import { invalidFieldValue } from './errors.ts';
import { compileFilter, type FilterPredicate } from './list-filter.ts';
import { boolParam } from './query-params.ts';

/** ListQuery is the parsed common query of compute list methods. */
export interface ListQuery {
  readonly maxResults: number;
  /** How many matching items earlier pages held, decoded from pageToken. */
  readonly offset: number;
  readonly filter: FilterPredicate;
  readonly orderBy: 'name' | 'creationTimestamp desc' | undefined;
}

/** MAX_RESULTS is compute's largest (and default) page size. */
export const MAX_RESULTS = 500;

/** parseListQuery reads maxResults, pageToken, filter and orderBy with the real limits. */
export function parseListQuery(query: Record<string, unknown>): ListQuery {
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
  const offset = typeof pageToken === 'string' && pageToken !== '' ? decodePageToken(pageToken) : 0;
  const filterText = typeof query['filter'] === 'string' ? query['filter'] : '';
  const orderByText = typeof query['orderBy'] === 'string' ? query['orderBy'].trim() : '';
  let orderBy: ListQuery['orderBy'];
  if (orderByText !== '') {
    if (orderByText === 'name' || orderByText === 'creationTimestamp desc') orderBy = orderByText;
    else throw invalidFieldValue('orderBy', orderByText, 'Currently, only sorting by name or creationTimestamp desc is supported.');
  }
  // Nothing here fails partially, but a value that is not a bool is still the real 400.
  boolParam(query, 'returnPartialSuccess');
  return { maxResults, offset, filter: compileFilter(filterText), orderBy };
}

/** encodePageToken makes the opaque token that resumes a list at `offset`. */
export function encodePageToken(offset: number): string {
  return Buffer.from(`o:${offset}`, 'utf8').toString('base64url');
}

function decodePageToken(token: string): number {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const match = /^o:(\d{1,9})$/.exec(text);
  if (match === null || encodePageToken(Number(match[1])) !== token) throw invalidFieldValue('pageToken', token, 'The page token is invalid.');
  return Number(match[1]);
}

/** Page is one page of rendered items and the token for the next. */
export interface Page {
  readonly items: Record<string, unknown>[];
  readonly nextPageToken: string | undefined;
}

/** paginate filters rendered items (given in name order), orders them as asked, and cuts one page. */
export function paginate(items: readonly Record<string, unknown>[], query: ListQuery): Page {
  const matching = items.filter((item) => query.filter(item));
  if (query.orderBy === 'creationTimestamp desc') {
    matching.sort((a, b) => String(b['creationTimestamp']).localeCompare(String(a['creationTimestamp'])));
  }
  const end = query.offset + query.maxResults;
  return { items: matching.slice(query.offset, end), nextPageToken: end < matching.length ? encodePageToken(end) : undefined };
}
