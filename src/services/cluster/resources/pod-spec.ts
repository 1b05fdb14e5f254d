/**
 * The PodSpec rules and defaults shared by Pods and every kind with a pod template (Deployments,
 * ReplicaSets, StatefulSets, DaemonSets, Jobs, CronJobs, ReplicationControllers, PodTemplates):
 * the Go validations users hit first (upstream `pkg/apis/core/validation`) and the defaults of
 * `pkg/apis/core/v1/defaults.go` that kubectl's output and clients rely on.
 */
import { duplicate, invalid, notSupported, required, type FieldError } from '../apimachinery/field-errors.ts';
import { isDns1123Label } from '../apimachinery/name-rules.ts';

type Json = Record<string, unknown>;

function asRecord(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function asList(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter((item): item is Json => asRecord(item) !== undefined) : [];
}

function validateContainers(containers: Json[], path: string, names: Set<string>): FieldError[] {
  const errors: FieldError[] = [];
  containers.forEach((container, index) => {
    const at = `${path}[${index}]`;
    const name = container['name'];
    if (typeof name === 'string' && name !== '') {
      for (const problem of isDns1123Label(name)) errors.push(invalid(`${at}.name`, name, problem));
      if (names.has(name)) errors.push(duplicate(`${at}.name`, name));
      names.add(name);
    }
    if (typeof container['image'] !== 'string' || container['image'] === '') errors.push(required(`${at}.image`));
  });
  return errors;
}

/** validatePodSpec checks the rules of a PodSpec at `path` (`spec`, `spec.template.spec`); restartPolicies narrows the allowed policies. */
export function validatePodSpec(spec: unknown, path: string, restartPolicies: readonly string[] = ['Always', 'OnFailure', 'Never']): FieldError[] {
  const record = asRecord(spec);
  if (record === undefined) return [];
  const errors: FieldError[] = [];
  // An absent list is the schema's Required; an empty one is the same error from Go.
  if (Array.isArray(record['containers']) && record['containers'].length === 0) errors.push(required(`${path}.containers`));
  const names = new Set<string>();
  errors.push(...validateContainers(asList(record['initContainers']), `${path}.initContainers`, names));
  errors.push(...validateContainers(asList(record['containers']), `${path}.containers`, names));
  const policy = record['restartPolicy'];
  if (typeof policy === 'string' && policy !== '' && !restartPolicies.includes(policy)) {
    errors.push(
      restartPolicies.length === 2
        ? required(`${path}.restartPolicy`, `valid values: ${restartPolicies.map((item) => JSON.stringify(item)).join(', ')}`)
        : notSupported(`${path}.restartPolicy`, policy, restartPolicies),
    );
  }
  return errors;
}

function imagePullPolicyOf(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const withoutDigest = image.includes('@') ? undefined : image;
  if (withoutDigest === undefined) return 'IfNotPresent';
  const lastSlash = withoutDigest.lastIndexOf('/');
  const tagAt = withoutDigest.indexOf(':', lastSlash + 1);
  const tag = tagAt === -1 ? 'latest' : withoutDigest.slice(tagAt + 1);
  return tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(container: Json): void {
  container['terminationMessagePath'] ??= '/dev/termination-log';
  container['terminationMessagePolicy'] ??= 'File';
  container['imagePullPolicy'] ??= imagePullPolicyOf(container['image']);
  container['resources'] ??= {};
  for (const port of asList(container['ports'])) port['protocol'] ??= 'TCP';
}

/** defaultPodSpec fills the defaults the apiserver writes into a PodSpec (in place; the object is the request's own copy). */
export function defaultPodSpec(spec: unknown): void {
  const record = asRecord(spec);
  if (record === undefined) return;
  record['restartPolicy'] ??= 'Always';
  record['terminationGracePeriodSeconds'] ??= 30;
  record['dnsPolicy'] ??= 'ClusterFirst';
  record['securityContext'] ??= {};
  record['schedulerName'] ??= 'default-scheduler';
  for (const container of [...asList(record['initContainers']), ...asList(record['containers'])]) defaultContainer(container);
}

/** recordAt reads `object.<path…>` as a record, if present. */
export function recordAt(object: unknown, ...path: string[]): Json | undefined {
  let current = asRecord(object);
  for (const key of path) current = asRecord(current?.[key]);
  return current;
}

/** listOf reads an array of records. */
export function listOf(value: unknown): Json[] {
  return asList(value);
}
