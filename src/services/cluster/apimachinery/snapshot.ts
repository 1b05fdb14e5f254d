/**
 * Reading a store kind as it was at one revision. The store keeps only the current state plus a
 * change feed, so a list "as of revision R" (a consistent page of a paged list, an Exact list)
 * is the current state with every change made after R undone. With no write after R, which is
 * the usual case, that is a plain range read.
 */
import { CompactedError, type Change, type Store, type StoredRecord } from '../../../store/index.ts';

/** SnapshotPage is one page of a list at a revision. */
export interface SnapshotPage {
  readonly records: readonly StoredRecord[];
  /** True when more records follow the page. */
  readonly more: boolean;
}

/** RevisionCompactedError says the revision is older than the change feed reaches back. */
export class RevisionCompactedError extends Error {
  override readonly name = 'RevisionCompactedError';
}

/**
 * listAtRevision returns up to `limit` records of `kind` under `prefix`, with keys after `after`,
 * as they were at `revision`; `filter` drops records not selected (pages are filled after filtering).
 */
export async function listAtRevision(
  store: Store,
  kind: string,
  options: {
    readonly prefix: string;
    readonly after?: string;
    readonly limit?: number;
    readonly revision: number;
    readonly filter?: (record: StoredRecord) => boolean;
  },
): Promise<SnapshotPage> {
  const { prefix, limit, revision, filter } = options;
  const after = options.after === undefined ? undefined : prefix + options.after;
  let later: Change[];
  try {
    later = await store.changesSince(revision, { kinds: [kind] });
  } catch (error) {
    if (error instanceof CompactedError) throw new RevisionCompactedError(error.message);
    throw error;
  }
  if (later.length === 0) {
    const page = await fastPage(store, kind, prefix, after, limit, filter);
    // A write that landed between the feed read and the range read shows as a newer record.
    if (page.records.every((record) => record.revision <= revision)) return page;
    later = await store.changesSince(revision, { kinds: [kind] });
  }
  const touched = new Map<string, Change>();
  for (const change of later) if (!touched.has(change.key)) touched.set(change.key, change);
  const before = await valuesBefore(store, kind, revision, touched);
  const current = await store.list(kind, { prefix, ...(after === undefined ? {} : { after }) });
  const merged = new Map<string, StoredRecord>();
  for (const record of current) if (!touched.has(record.key)) merged.set(record.key, record);
  for (const [key, record] of before) {
    if (key.startsWith(prefix) && (after === undefined || key > after)) merged.set(key, record);
  }
  const keys = [...merged.keys()].sort();
  const records: StoredRecord[] = [];
  for (const key of keys) {
    const record = merged.get(key)!;
    if (filter !== undefined && !filter(record)) continue;
    if (limit !== undefined && records.length === limit) return { records, more: true };
    records.push(record);
  }
  return { records, more: false };
}

async function fastPage(
  store: Store,
  kind: string,
  prefix: string,
  after: string | undefined,
  limit: number | undefined,
  filter: ((record: StoredRecord) => boolean) | undefined,
): Promise<SnapshotPage> {
  const records: StoredRecord[] = [];
  let cursor = after;
  // Read in chunks so a selective filter does not force reading everything at once.
  const chunk = limit === undefined ? undefined : Math.max(limit + 1, 64);
  for (;;) {
    const batch = await store.list(kind, { prefix, ...(cursor === undefined ? {} : { after: cursor }), ...(chunk === undefined ? {} : { limit: chunk }) });
    for (const record of batch) {
      if (filter !== undefined && !filter(record)) continue;
      if (limit !== undefined && records.length === limit) return { records, more: true };
      records.push(record);
    }
    if (chunk === undefined || batch.length < chunk) return { records, more: false };
    cursor = batch[batch.length - 1]!.key;
  }
}

/** valuesBefore finds, for each key first touched after `revision`, the record it held at `revision` (absent keys are left out). */
async function valuesBefore(store: Store, kind: string, revision: number, touched: ReadonlyMap<string, Change>): Promise<Map<string, StoredRecord>> {
  const out = new Map<string, StoredRecord>();
  const needHistory = [...touched.values()].filter((change) => change.type !== 'created');
  if (needHistory.length === 0) return out;
  const oldest = await store.oldestResumableRevision();
  const history = await store.changesSince(oldest, { kinds: [kind] });
  const lastBefore = new Map<string, Change>();
  for (const change of history) {
    if (change.revision > revision) break;
    if (touched.has(change.key)) lastBefore.set(change.key, change);
  }
  for (const change of needHistory) {
    const previous = lastBefore.get(change.key);
    if (previous === undefined) {
      // The record's state at `revision` predates the feed: the revision is compacted for it.
      throw new RevisionCompactedError(`revision ${revision} of ${kind}/${change.key} is compacted`);
    }
    if (previous.type === 'deleted') continue;
    out.set(change.key, { kind, key: change.key, value: previous.value, revision: previous.revision, createRevision: previous.createRevision });
  }
  return out;
}
