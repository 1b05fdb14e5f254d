// An instance body read against the schema, merged over its template when it has one, and
// validated: what InstanceService loads with the first insert (the schema stays out of start-up).
import type { IdSource } from '../../../lib/ids.ts';
import { normalizeProperties } from '../instance-templates/normalize-template.ts';
import type { InstancePropertiesInput } from '../instance-templates/schema.ts';
import type { StoredTemplate } from '../instance-templates/template.ts';
import { decodeResource } from '../shared/decode-resource.ts';
import { conditionNotMet, requiredField } from '../shared/errors.ts';
import { sameFingerprint } from '../shared/fingerprint.ts';
import { checkLabels } from '../shared/labels.ts';
import { checkResourceName } from '../shared/names.ts';
import { machineTypePath } from './machine-types.ts';
import { InstanceSchema, type InstanceInput, InstancesSetLabelsSchema, MetadataSchema, TagsSchema } from './schema.ts';

/** DecodedInstance is an insert body validated: what the instance is made of before its addresses and disks are given. */
export interface DecodedInstance {
  readonly name: string;
  readonly machineType: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly properties: Record<string, unknown>;
}

/** InsertContext is what validating an insert needs beyond the body. */
export interface InsertContext {
  readonly project: string;
  readonly zone: string;
  readonly checkPermission: (permission: string, resourcePath: string) => void;
}

/**
 * decodeInstance reads an insert body. With a template, the template's properties are the base
 * and every field the body gives replaces the template's (as `instances.insert` with
 * `sourceInstanceTemplate` documents: "values in the request override the template"); the result
 * is validated as a whole, so a template whose machine type the zone lacks is refused here.
 */
export function decodeInstance(body: unknown, template: StoredTemplate | undefined, ctx: InsertContext, ids: IdSource): DecodedInstance {
  const input = decodeResource<InstanceInput>(InstanceSchema, body);
  const {
    kind: _k,
    id: _i,
    creationTimestamp: _c,
    zone: _z,
    status: _s,
    selfLink: _l,
    fingerprint: _f,
    labelFingerprint: _lf,
    startRestricted: _r,
    cpuPlatform: _p,
    statusMessage: _sm,
    lastStartTimestamp: _ls,
    lastStopTimestamp: _lt,
    lastSuspendedTimestamp: _lu,
    deletionProtection,
    hostname,
    name,
    labels,
    ...given
  } = input;
  const checkedName = checkResourceName(name);
  const base = (template?.properties ?? {}) as Record<string, unknown>;
  const { labels: templateLabels, ...templateProperties } = base as { labels?: Record<string, string> } & Record<string, unknown>;
  const merged = { ...templateProperties, ...given } as InstancePropertiesInput;
  if (merged.machineType === undefined || merged.machineType === '') throw requiredField('resource.machineType');
  const machineType = machineTypePath(merged.machineType, ctx.project, ctx.zone);
  const allLabels = { ...(templateLabels ?? {}), ...(labels ?? {}) };
  checkLabels(allLabels, 'resource.labels');
  const {
    machineType: _m,
    description: _d,
    ...properties
  } = normalizeProperties(merged, { project: ctx.project, checkPermission: ctx.checkPermission, fieldRoot: 'resource' }, ids);
  const own = { deletionProtection: deletionProtection ?? false, ...(hostname === undefined ? {} : { hostname }) };
  return { name: checkedName, machineType, labels: allLabels, properties: { ...properties, description: merged.description ?? '', ...own } };
}

/** decodeLabels reads a setLabels body, its fingerprint checked against the instance's. */
export function decodeLabels(body: unknown, current: string): Record<string, string> {
  const input = decodeResource<{ labels?: Record<string, string>; labelFingerprint?: string }>(InstancesSetLabelsSchema, body);
  if (input.labelFingerprint === undefined || !sameFingerprint(input.labelFingerprint, current))
    throw conditionNotMet('Labels fingerprint either invalid or resource labels have changed');
  const labels = input.labels ?? {};
  checkLabels(labels, 'labels');
  return labels;
}

/** decodeMetadata reads a setMetadata body (the fingerprint must be current) into the stored metadata. */
export function decodeMetadata(body: unknown, current: string, project: string, ids: IdSource): Record<string, unknown> {
  const input = decodeResource<{ fingerprint?: string; items?: { key?: string; value?: string }[] }>(MetadataSchema, body, 'metadata');
  if (input.fingerprint === undefined || !sameFingerprint(input.fingerprint, current))
    throw conditionNotMet('Supplied fingerprint does not match current metadata fingerprint.');
  const properties = normalizeProperties(
    { machineType: 'x', metadata: input } as InstancePropertiesInput,
    { project, checkPermission: () => undefined, fieldRoot: 'metadata' },
    ids,
  );
  return properties['metadata'] as Record<string, unknown>;
}

/** decodeTags reads a setTags body (the fingerprint must be current) into the stored tags. */
export function decodeTags(body: unknown, current: string, project: string, ids: IdSource): Record<string, unknown> {
  const input = decodeResource<{ fingerprint?: string; items?: string[] }>(TagsSchema, body, 'tags');
  if (input.fingerprint === undefined || !sameFingerprint(input.fingerprint, current))
    throw conditionNotMet('Supplied fingerprint does not match current tags fingerprint.');
  const properties = normalizeProperties(
    { machineType: 'x', tags: input } as InstancePropertiesInput,
    { project, checkPermission: () => undefined, fieldRoot: 'tags' },
    ids,
  );
  return properties['tags'] as Record<string, unknown>;
}
