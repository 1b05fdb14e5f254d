import type { IdSource } from '../../../lib/ids.ts';
import { newFingerprint } from '../shared/fingerprint.ts';
import { invalidFieldValue, requiredField } from '../shared/errors.ts';
import { checkLabels } from '../shared/labels.ts';
import { checkDescription } from '../shared/string-limits.ts';
import { RESOURCE_NAME_PATTERN, RESOURCE_NAME_REGEX_TEXT, checkResourceName } from '../shared/names.ts';
import { resourcePathOf } from '../shared/links.ts';
import type { InstancePropertiesInput, InstanceTemplateInput } from './schema.ts';
import { normalizeDisks } from './validate-disks.ts';
import { normalizeNetworkInterfaces } from './validate-network-interfaces.ts';
import { normalizeScheduling } from './validate-scheduling.ts';
import { fieldRootOf, type ValidationContext } from './validation-context.ts';

/** NormalizedTemplate is a validated template ready to store (without id and creation time). */
export interface NormalizedTemplate {
  readonly name: string;
  readonly description: string;
  readonly properties: Record<string, unknown>;
  /** True when machineType is a URL, which the real service accepts and then fails with INTERNAL_ERROR. */
  readonly machineTypeIsUrl: boolean;
  readonly sourceInstance?: string;
  readonly sourceInstanceParams?: unknown;
}

const METADATA_KEY = /^[a-zA-Z0-9_-]{1,128}$/;
/** METADATA_VALUE_LIMIT and METADATA_TOTAL_LIMIT are the metadata size limits, in bytes. */
export const METADATA_VALUE_LIMIT = 256 * 1024;
export const METADATA_TOTAL_LIMIT = 512 * 1024;

/** normalizeTemplate validates an insert body (every rule of the spec's tables) and fills server defaults. */
export function normalizeTemplate(input: InstanceTemplateInput, ctx: ValidationContext, ids: IdSource): NormalizedTemplate {
  const name = checkResourceName(input.name);
  checkDescription(input.description);
  if (input.properties === undefined) throw requiredField('resource.properties');
  const properties = normalizeProperties(input.properties, ctx, ids);
  const machineType = input.properties.machineType ?? '';
  if (input.sourceInstanceParams !== undefined && (input.sourceInstance === undefined || input.sourceInstance === '')) {
    throw invalidFieldValue('resource.sourceInstanceParams', '', 'sourceInstanceParams can only be used together with sourceInstance.');
  }
  if (input.sourceInstance !== undefined && input.sourceInstance !== '') {
    const path = resourcePathOf(input.sourceInstance, ctx.project);
    const valid = path !== undefined && /^projects\/[^/]+\/zones\/[^/]+\/instances\/[^/]+$/.test(path);
    throw invalidFieldValue(
      'resource.sourceInstance',
      input.sourceInstance,
      valid ? 'The referenced source instance resource cannot be found.' : 'The URL is malformed.',
    );
  }
  return { name, description: input.description ?? '', properties, machineTypeIsUrl: machineType.includes('/') };
}

/** normalizeProperties validates instance properties (a template's, or an instance's own, `ctx.fieldRoot` naming them) and fills server defaults. */
export function normalizeProperties(input: InstancePropertiesInput, ctx: ValidationContext, ids: IdSource): Record<string, unknown> {
  const field = fieldRootOf(ctx);
  if (input.machineType === undefined || input.machineType === '') throw requiredField(`${field}.machineType`);
  if (!input.machineType.includes('/') && !/^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/.test(input.machineType)) {
    throw invalidFieldValue(`${field}.machineType`, input.machineType, 'Invalid machine type name.');
  }
  const out: Record<string, unknown> = { ...input, canIpForward: input.canIpForward ?? false };
  if (input.tags !== undefined) {
    (input.tags.items ?? []).forEach((tag, i) => {
      if (!RESOURCE_NAME_PATTERN.test(tag)) throw invalidFieldValue(`${field}.tags.items[${i}]`, tag, `Must be a match of regex '${RESOURCE_NAME_REGEX_TEXT}'`);
    });
    // The fingerprint is output only on insert: a fresh one is made for the stored tags.
    out['tags'] = { ...(input.tags.items === undefined ? {} : { items: [...new Set(input.tags.items)] }), fingerprint: newFingerprint(ids) };
  }
  checkResourceManagerTags(input.resourceManagerTags, `${field}.resourceManagerTags`);
  if (input.labels !== undefined) checkLabels(input.labels, `${field}.labels`);
  out['networkInterfaces'] = normalizeNetworkInterfaces(input.networkInterfaces ?? [], ctx);
  if (input.disks !== undefined) out['disks'] = normalizeDisks(input.disks, ctx);
  out['metadata'] = normalizeMetadata(input.metadata, `${field}.metadata`, ids);
  if (input.serviceAccounts !== undefined) {
    if (input.serviceAccounts.length > 1) throw invalidFieldValue(`${field}.serviceAccounts`, '', 'At most one service account can be specified.');
    input.serviceAccounts.forEach((account, i) => {
      if (account.email === undefined || account.email === '') throw requiredField(`${field}.serviceAccounts[${i}].email`);
      if (account.email !== 'default' && !/^[^@\s]+@[^@\s]+$/.test(account.email)) {
        throw invalidFieldValue(`${field}.serviceAccounts[${i}].email`, account.email, 'The service account email is not valid.');
      }
    });
  }
  const accelerators = input.guestAccelerators ?? [];
  accelerators.forEach((accelerator, i) => {
    if (accelerator.acceleratorType === undefined || accelerator.acceleratorType === '')
      throw requiredField(`${field}.guestAccelerators[${i}].acceleratorType`);
    if (accelerator.acceleratorType.includes('/')) {
      throw invalidFieldValue(
        `${field}.guestAccelerators[${i}].acceleratorType`,
        accelerator.acceleratorType,
        'Instance templates take an accelerator type name, not a URL.',
      );
    }
    if ((accelerator.acceleratorCount ?? 0) < 1) {
      throw invalidFieldValue(
        `${field}.guestAccelerators[${i}].acceleratorCount`,
        String(accelerator.acceleratorCount ?? 0),
        'Accelerator count must be at least 1.',
      );
    }
  });
  out['scheduling'] = normalizeScheduling(input.scheduling ?? {}, accelerators.length > 0, field);
  const affinity = input.reservationAffinity;
  if (affinity !== undefined) {
    const specific = affinity.consumeReservationType === 'SPECIFIC_RESERVATION';
    if (specific && (affinity.key === undefined || (affinity.values ?? []).length === 0)) {
      throw invalidFieldValue(`${field}.reservationAffinity`, '', 'SPECIFIC_RESERVATION requires a key and at least one value.');
    }
    if (!specific && (affinity.key !== undefined || (affinity.values ?? []).length > 0)) {
      throw invalidFieldValue(`${field}.reservationAffinity`, '', 'key and values can only be set for SPECIFIC_RESERVATION.');
    }
  }
  const features = input.advancedMachineFeatures;
  if (features?.threadsPerCore !== undefined && features.threadsPerCore !== 1 && features.threadsPerCore !== 2) {
    throw invalidFieldValue(`${field}.advancedMachineFeatures.threadsPerCore`, String(features.threadsPerCore), 'Threads per core must be 1 or 2.');
  }
  if (features?.visibleCoreCount !== undefined && features.visibleCoreCount < 1) {
    throw invalidFieldValue(`${field}.advancedMachineFeatures.visibleCoreCount`, String(features.visibleCoreCount), 'Visible core count must be at least 1.');
  }
  (input.resourcePolicies ?? []).forEach((policy, i) => {
    if (policy.includes('/')) throw invalidFieldValue(`${field}.resourcePolicies[${i}]`, policy, 'Instance templates take a resource policy name, not a URL.');
  });
  return out;
}

function normalizeMetadata(metadata: InstancePropertiesInput['metadata'], field: string, ids: IdSource): Record<string, unknown> {
  const items = metadata?.items ?? [];
  const seen = new Set<string>();
  let total = 0;
  items.forEach((item, i) => {
    const key = item.key ?? '';
    if (!METADATA_KEY.test(key)) throw invalidFieldValue(`${field}.items[${i}].key`, key, "Must be a match of regex '[a-zA-Z0-9-_]{1,128}'");
    if (seen.has(key)) throw invalidFieldValue(`${field}.items`, '', `Metadata has duplicate keys: ${key}.`);
    seen.add(key);
    const size = Buffer.byteLength(item.value ?? '', 'utf8');
    if (size > METADATA_VALUE_LIMIT)
      throw invalidFieldValue(`${field}.items[${i}].value`, '', `Metadata value is too large: ${size} bytes; the limit is ${METADATA_VALUE_LIMIT} bytes.`);
    total += size + Buffer.byteLength(key, 'utf8');
  });
  if (total > METADATA_TOTAL_LIMIT) throw invalidFieldValue(field, '', `Metadata is too large: ${total} bytes; the limit is ${METADATA_TOTAL_LIMIT} bytes.`);
  return {
    kind: 'compute#metadata',
    fingerprint: newFingerprint(ids),
    ...(items.length > 0 ? { items: items.map((item) => ({ key: item.key, value: item.value ?? '' })) } : {}),
  };
}

function checkResourceManagerTags(tags: Record<string, string> | undefined, field: string): void {
  for (const [key, value] of Object.entries(tags ?? {})) {
    if (!/^tagKeys\/\d+$/.test(key)) throw invalidFieldValue(field, key, 'Keys must be of the form tagKeys/{tag_key_id}.');
    if (!/^tagValues\/\d+$/.test(value))
      throw invalidFieldValue(`${field}[${JSON.stringify(key)}]`, value, 'Values must be of the form tagValues/{tag_value_id}.');
  }
}
