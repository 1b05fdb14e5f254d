/**
 * Query options of list/watch and write requests, parsed and validated with the real server's
 * rules and texts (apimachinery `meta/internalversion/validation` and `meta/v1/validation`).
 */
import { forbidden, notSupported, required, type FieldError } from './field-errors.ts';
import { FieldSelectorSyntaxError, parseFieldSelector, type FieldSelector } from './field-selector.ts';
import { type LabelSelector, LabelSelectorSyntaxError, parseLabelSelector } from './label-selector.ts';
import type { ListQuery } from './registry.ts';
import { clampToNumber, parseInt64, queryFlag } from './query-values.ts';
import { badRequest, invalidObject } from './status.ts';

/** Query is a request's query string as Fastify parses it. */
export type Query = Readonly<Record<string, string | string[] | undefined>>;

/** single reads one query value (the first, when repeated). */
export function single(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

/** parseBool reads a boolean query parameter as the apiserver does (queryFlag): `0`/`false` are false, any other value true. */
export function parseBool(query: Query, name: string): boolean | undefined {
  return queryFlag(single(query, name));
}

/** parseInteger reads an int64 query parameter as the apiserver does (strconv.ParseInt; an empty value is invalid syntax too). */
export function parseInteger(query: Query, name: string): bigint | undefined {
  const value = single(query, name);
  return value === undefined ? undefined : parseInt64(value);
}

/**
 * MAX_LIMIT caps `limit`: any larger value asks for the same thing (every item), and the stores
 * take a safe integer.
 */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;
/** MAX_TIMEOUT_SECONDS caps `timeoutSeconds` at what one Node timer can wait (about 24.8 days). */
export const MAX_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** WatchQuery is a parsed list request that may be a watch. */
export interface WatchQuery extends ListQuery {
  readonly watch: boolean;
  readonly allowWatchBookmarks: boolean;
  readonly sendInitialEvents: boolean | undefined;
  readonly timeoutSeconds: number | undefined;
}

/** parseListQuery reads and validates list/watch options; `supportedFields` are the resource's field labels. */
export function parseListQuery(query: Query, supportedFields: ReadonlySet<string>): WatchQuery {
  // The decoder reads the parameters in ListOptions' field order and stops at the first it cannot
  // read; the selectors are parsed after that, when the options convert to the internal version.
  const watch = parseBool(query, 'watch') ?? false;
  const allowWatchBookmarks = parseBool(query, 'allowWatchBookmarks') ?? false;
  const timeoutSeconds = parseInteger(query, 'timeoutSeconds');
  const limitValue = parseInteger(query, 'limit');
  const sendInitialEvents = parseBool(query, 'sendInitialEvents');
  const labelText = single(query, 'labelSelector') ?? '';
  const fieldText = single(query, 'fieldSelector') ?? '';
  let labelSelector: LabelSelector;
  try {
    labelSelector = parseLabelSelector(labelText);
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError) throw badRequest(`unable to parse requirement: ${error.message}`);
    throw error;
  }
  let fieldSelector: FieldSelector;
  try {
    fieldSelector = parseFieldSelector(fieldText);
  } catch (error) {
    if (error instanceof FieldSelectorSyntaxError) throw badRequest(error.message);
    throw error;
  }
  for (const requirement of fieldSelector.requirements) {
    if (!supportedFields.has(requirement.field)) throw badRequest(`field label not supported: ${requirement.field}`);
  }
  const continueToken = single(query, 'continue') || undefined;
  const resourceVersion = single(query, 'resourceVersion') || undefined;
  const match = single(query, 'resourceVersionMatch') || undefined;
  const errors: FieldError[] = [];
  if (watch) {
    if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errors.push(forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
    }
    if (match !== undefined) {
      if (sendInitialEvents === undefined)
        errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
      if (match !== 'NotOlderThan') errors.push(notSupported('resourceVersionMatch', match, ['NotOlderThan']));
      if (continueToken !== undefined) errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  } else {
    if (match !== undefined) {
      if (resourceVersion === undefined) errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
      if (continueToken !== undefined) errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
      if (match !== 'Exact' && match !== 'NotOlderThan') errors.push(notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
      if (match === 'Exact' && resourceVersion === '0')
        errors.push(forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
    if (sendInitialEvents !== undefined) errors.push(forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  if (errors.length > 0) throw invalidObject({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errors);
  return {
    watch,
    labelSelector,
    fieldSelector,
    limit: limitValue !== undefined && limitValue > 0n ? clampToNumber(limitValue, MAX_LIMIT) : undefined,
    continueToken,
    resourceVersion,
    resourceVersionMatch: match === 'Exact' || match === 'NotOlderThan' ? match : undefined,
    allowWatchBookmarks,
    sendInitialEvents,
    timeoutSeconds: timeoutSeconds !== undefined && timeoutSeconds > 0n ? clampToNumber(timeoutSeconds, MAX_TIMEOUT_SECONDS) : undefined,
  };
}

/** FieldValidation is the `fieldValidation` directive: what to do with unknown or duplicate fields. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** WriteQuery is a parsed create/update/patch query. */
export interface WriteQuery {
  readonly dryRun: boolean;
  readonly fieldManager: string | undefined;
  readonly fieldValidation: FieldValidation;
  /** force is PatchOptions.force read as the apiserver reads it (`force=True`, `force=1`, … are true); false elsewhere. */
  readonly force: boolean;
}

/** parseWriteQuery validates dryRun, fieldManager and fieldValidation (`kind` names the options type in errors). */
export function parseWriteQuery(query: Query, kind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', isPatch: boolean | 'apply' = false): WriteQuery {
  const errors: FieldError[] = [];
  // ValidatePatchOptions checks force / fieldManager before the options every write shares.
  if (isPatch === true && single(query, 'force') !== undefined) errors.push(forbidden('force', 'may not be specified for non-apply patch'));
  if (isPatch === 'apply' && (single(query, 'fieldManager') ?? '') === '') errors.push(required('fieldManager', 'is required for apply patch'));
  const dryRun = dryRunOf(query, errors);
  const fieldManager = single(query, 'fieldManager');
  if (fieldManager !== undefined) {
    if (fieldManager.length > 128) errors.push({ type: 'FieldValueTooLong', field: 'fieldManager', detail: 'may not be longer than 128' });
    for (const char of fieldManager) {
      if (!/[\p{L}\p{N}\p{P}\p{S} ]/u.test(char)) {
        errors.push({ type: 'FieldValueInvalid', field: 'fieldManager', value: fieldManager, detail: 'invalid characters' });
        break;
      }
    }
  }
  const validation = single(query, 'fieldValidation') ?? '';
  if (!['', 'Ignore', 'Warn', 'Strict'].includes(validation)) errors.push(notSupported('fieldValidation', validation, ['', 'Ignore', 'Warn', 'Strict']));
  if (errors.length > 0) throw invalidObject({ group: 'meta.k8s.io', kind }, '', errors);
  return {
    dryRun,
    fieldManager,
    fieldValidation: validation === '' ? 'Warn' : (validation as FieldValidation),
    force: isPatch === 'apply' && parseBool(query, 'force') === true,
  };
}

/** dryRunOf reads `dryRun` (only `All` is valid), recording errors. */
export function dryRunOf(query: Query, errors: FieldError[]): boolean {
  const raw = query['dryRun'];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  if (values.some((value) => value !== 'All')) errors.push(notSupported('dryRun', values, ['All']));
  return values.length > 0;
}
