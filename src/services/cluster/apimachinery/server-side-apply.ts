/**
 * Server-side apply (structured-merge-diff's `Updater.Apply`, docs: server-side-apply): the
 * applied configuration is merged into the live object following the schema's list and map
 * types; any field the merge changes that another manager owns is a conflict (409) unless
 * `force` moves it to the applier; fields the applier owned before and no longer applies are
 * removed unless someone else owns them; the applier's `Apply` entry becomes exactly the set of
 * fields it applied.
 */
import { isDeepStrictEqual } from 'node:util';
import { ownValue, setOwn } from '../../../core/own.ts';
import type { KubeObject, ManagedFieldsEntry } from './object-meta.ts';
import { leafPathsOfTrie, pathsOf, pathText, removePath, SEP, trieOfPaths, valueAtPath, type SchemaWalker } from './field-set.ts';
import type { Schema } from './schema.ts';
import { encodeLikeGoEncoder } from './go-json.ts';
import { StatusError } from './status.ts';

type Json = Record<string, unknown>;
type Resolved = Exclude<Schema, { $ref: string }>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** ApplyRequest is one apply: the live object (external form; undefined when it does not exist yet) and the applied configuration. */
export interface ApplyRequest {
  readonly live: KubeObject | undefined;
  readonly applied: Json;
  /** The applied configuration's apiVersion and kind as the client sent them (decoding drops them from `applied`). */
  readonly typeMeta?: { readonly apiVersion: unknown; readonly kind: unknown };
  readonly manager: string;
  readonly force: boolean;
  /** The apiVersion written into the applier's managedFields entry. */
  readonly apiVersion: string;
  /** The entry's time (RFC 3339). */
  readonly time: string;
  /** The schema component name of the kind, and the walker over its schema set. */
  readonly root: string;
  readonly walker: SchemaWalker;
}

/** ApplyResult is the object to store and its new managedFields. */
export interface ApplyResult {
  readonly object: KubeObject;
  readonly managedFields: ManagedFieldsEntry[];
}

/** managerIdentifier is how the real server keys a manager (its JSON without time and fields), which also orders conflict messages. */
function managerIdentifier(entry: ManagedFieldsEntry): string {
  return JSON.stringify({
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: entry.apiVersion,
    ...(entry.subresource === undefined ? {} : { subresource: entry.subresource }),
  });
}

/** printManager names a manager in conflict texts: `"kubectl"`, `"kubectl-edit" using rbac.authorization.k8s.io/v1`. */
export function printManager(entry: ManagedFieldsEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource !== undefined && entry.subresource !== '') text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  // The manager identifier drops the time, so the "at <time>" form never shows.
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion}`;
  return text;
}

/** ApplyConflict is one field another manager owns that the apply would change. */
export interface ApplyConflict {
  readonly entry: ManagedFieldsEntry;
  readonly path: string;
}

/** applyConflictError is the real 409: `Apply failed with N conflict(s): ...`, one `FieldManagerConflict` cause per field. */
export function applyConflictError(conflicts: readonly ApplyConflict[]): StatusError {
  const sorted = [...conflicts].sort((a, b) => compare(managerIdentifier(a.entry), managerIdentifier(b.entry)) || compare(pathText(a.path), pathText(b.path)));
  const causes = sorted.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.entry)}`, field: pathText(c.path) }));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(sorted[0]!.entry)}: ${pathText(sorted[0]!.path)}`;
  } else {
    const lines: string[] = [];
    let current: string | undefined;
    for (const c of sorted) {
      const id = managerIdentifier(c.entry);
      if (id !== current) {
        lines.push(`conflicts with ${printManager(c.entry)}:`);
        current = id;
      }
      lines.push(`- ${pathText(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** mergeApplied merges an applied configuration into a live value following the schema (structured-merge-diff's merge). */
export function mergeApplied(live: unknown, applied: unknown, schema: Resolved | undefined, walker: SchemaWalker): unknown {
  if (applied === undefined) return live;
  if (schema === undefined || !walker.granular(schema)) return structuredClone(applied);
  if (schema.type === 'object' || schema.type === 'map') {
    if (!isObject(applied)) return structuredClone(applied);
    const out: Json = isObject(live) ? { ...live } : {};
    for (const [key, value] of Object.entries(applied)) setOwn(out, key, mergeApplied(ownValue(out, key), value, walker.child(schema, `f:${key}`), walker));
    return out;
  }
  if (schema.type === 'array' && Array.isArray(applied)) {
    // Live items keep their places (merged with their applied version); new items follow in applied order.
    const out = Array.isArray(live) ? [...live] : [];
    const itemSchema = walker.resolve(schema.items);
    for (const item of applied) {
      const step = walker.itemStep(schema, item);
      const index = out.findIndex((existing) => walker.itemStep(schema, existing) === step);
      if (index === -1) out.push(structuredClone(item));
      else if (schema.listType === 'map') out[index] = mergeApplied(out[index], item, itemSchema, walker);
    }
    return out;
  }
  return structuredClone(applied);
}

/** serverSideApply computes the applied object and its managedFields, or throws the conflict 409. */
export function serverSideApply(request: ApplyRequest): ApplyResult {
  const { walker, root, manager } = request;
  const rootSchema = walker.resolve({ $ref: root });
  const live = (request.live ?? { metadata: {} }) as Json;
  const merged = mergeApplied(live, request.applied, rootSchema, walker) as KubeObject;
  merged.metadata = { ...(isObject(merged.metadata) ? merged.metadata : {}) };
  const previous = request.live?.metadata.managedFields ?? [];

  // What the merge changes, node by node (a container's `.` changes when it appears or goes).
  const livePaths = pathsOf(live, root, walker, true);
  const mergedPaths = pathsOf(merged, root, walker, true);
  const changed = new Set<string>();
  for (const path of new Set([...livePaths, ...mergedPaths])) {
    if (JSON.stringify(valueAtPath(live, path)) !== JSON.stringify(valueAtPath(merged, path))) changed.add(path);
  }

  const isApplier = (entry: ManagedFieldsEntry): boolean => entry.manager === manager && entry.operation === 'Apply' && (entry.subresource ?? '') === '';
  const owned = previous.map((entry) => new Set(leafPathsOfTrie(entry.fieldsV1)));
  const conflicts: ApplyConflict[] = [];
  previous.forEach((entry, index) => {
    if (isApplier(entry)) return;
    for (const path of owned[index]!) if (changed.has(path)) conflicts.push({ entry, path });
  });
  if (conflicts.length > 0 && !request.force) {
    const remaining = conflictsAfterClientSideUpgrade(conflicts, request);
    if (remaining.length > 0) throw applyConflictError(dedupe(remaining));
  }
  for (const { entry, path } of conflicts) owned[previous.indexOf(entry)]!.delete(path);

  const applied = new Set(pathsOf(request.applied, root, walker, false));
  const applierIndex = previous.findIndex(isApplier);
  const before = applierIndex === -1 ? new Set<string>() : owned[applierIndex]!;
  const ownedByOthers = (path: string): boolean => {
    const base = path.endsWith(`${SEP}.`) ? path.slice(0, -2) : path;
    return owned.some(
      (set, index) => index !== applierIndex && [...set].some((other) => other === path || other === base || other.startsWith(`${base}${SEP}`)),
    );
  };
  for (const path of before) {
    if (applied.has(path) || ownedByOthers(path)) continue;
    if (isFieldContainer(path)) {
      // Owning a struct or map itself (`.`, as an Update records it) is not owning what is in
      // it: only what no one owns any more goes (structured-merge-diff's prune, then add-back).
      const base = path.slice(0, -2);
      for (const leaf of pathsOf(merged as Json, root, walker, false)) {
        if (leaf.startsWith(`${base}${SEP}`) && !applied.has(leaf) && !ownedByOthers(leaf)) removePath(merged as Json, leaf);
      }
      continue;
    }
    removePath(merged as Json, path);
  }
  keepLastAppliedInStep(merged, request);

  const entries: ManagedFieldsEntry[] = [];
  const mine: ManagedFieldsEntry = {
    manager,
    operation: 'Apply',
    apiVersion: request.apiVersion,
    time: request.time,
    fieldsType: 'FieldsV1',
    fieldsV1: trieOfPaths(applied),
  };
  previous.forEach((entry, index) => {
    if (index === applierIndex) {
      if (applied.size > 0) entries.push(mine);
      return;
    }
    const kept = [...owned[index]!].filter((path) => valueAtPath(merged, path) !== undefined);
    if (kept.length === 0) return;
    const unchanged = kept.length === leafPathsOfTrie(entry.fieldsV1).length;
    entries.push(unchanged ? entry : { ...entry, fieldsV1: trieOfPaths(kept) });
  });
  if (applierIndex === -1 && applied.size > 0) entries.push(mine);
  return { object: merged, managedFields: entries };
}

/** isFieldContainer tells a struct's or map's own `.` path from a list item's (`k:…` / `v:…` then `.`), which is the item's membership. */
function isFieldContainer(path: string): boolean {
  const steps = path.split(SEP);
  return steps.length >= 2 && steps[steps.length - 1] === '.' && steps[steps.length - 2]!.startsWith('f:');
}

/**
 * keepLastAppliedInStep is the real server's last-applied updater: after an apply by `kubectl`
 * on an object that carries client-side apply's annotation, the annotation is rewritten to the
 * configuration just applied (without the annotation itself), so a later client-side apply
 * still computes its three-way patch from what was really applied last.
 */
function keepLastAppliedInStep(merged: KubeObject, request: ApplyRequest): void {
  const annotations = merged.metadata.annotations;
  if (request.manager !== UPGRADING_MANAGER || typeof annotations?.[LAST_APPLIED] !== 'string' || annotations[LAST_APPLIED] === '') return;
  const configuration: Json = { ...request.typeMeta, ...structuredClone(request.applied) };
  const metadata = configuration['metadata'];
  if (isObject(metadata) && isObject(metadata['annotations'])) delete metadata['annotations'][LAST_APPLIED];
  merged.metadata.annotations = { ...annotations, [LAST_APPLIED]: encodeLikeGoEncoder(configuration) };
}

/** UPGRADING_MANAGER is the one field manager whose applies take over from client-side apply (kubectl's own). */
const UPGRADING_MANAGER = 'kubectl';
/** LAST_APPLIED is the annotation in which client-side apply keeps the configuration it last applied. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * conflictsAfterClientSideUpgrade is what remains of an apply's conflicts once the move from
 * client-side to server-side apply is allowed for (the real server's last-applied manager): for
 * the `kubectl` manager, a conflict on a field the live object's last-applied-configuration
 * annotation holds with the live value is no conflict, since client-side apply is what set it.
 * Any other manager, or a missing or unreadable annotation, keeps every conflict.
 */
function conflictsAfterClientSideUpgrade(conflicts: readonly ApplyConflict[], request: ApplyRequest): ApplyConflict[] {
  const annotation = request.live?.metadata.annotations?.[LAST_APPLIED];
  if (request.manager !== UPGRADING_MANAGER || typeof annotation !== 'string' || annotation === '') return [...conflicts];
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(annotation);
  } catch {
    return [...conflicts];
  }
  if (!isObject(lastApplied)) return [...conflicts];
  const live = request.live;
  const agreeing = new Set(
    pathsOf(lastApplied, request.root, request.walker, false).filter((path) => isDeepStrictEqual(valueAtPath(lastApplied, path), valueAtPath(live, path))),
  );
  return conflicts.filter((conflict) => !agreeing.has(conflict.path));
}

function dedupe(conflicts: readonly ApplyConflict[]): ApplyConflict[] {
  const seen = new Set<string>();
  const out: ApplyConflict[] = [];
  for (const c of conflicts) {
    const key = `${managerIdentifier(c.entry)}\u0000${pathText(c.path)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}
