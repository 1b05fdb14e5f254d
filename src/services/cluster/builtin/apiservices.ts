/**
 * apiregistration.k8s.io/v1 APIService behaviour on the generic strategy, as kube-aggregator
 * v0.32 stores it (`pkg/registry/apiservice/strategy.go`, `pkg/apis/apiregistration/validation`,
 * the table of `pkg/registry/apiservice/etcd/etcd.go`): a new APIService's status is the
 * server's, and a local one (no `spec.service`) is Available at once; the availability controller
 * (apiservice-availability.ts) keeps the condition of every APIService.
 */
import { invalid, notSupported, required, type FieldError } from '../apimachinery/field-errors.ts';
import { ageSince } from '../apimachinery/human-duration.ts';
import { isDns1035Label, isDns1123Subdomain, isPathSegmentName } from '../apimachinery/name-rules.ts';
import { formatTime } from '../apimachinery/registry.ts';
import { AGE_COLUMN, type BuiltinObject, column, NAME_COLUMN, type KindBehaviour } from './behaviour.ts';
import { listOf, recordAt } from '../resources/pod-spec.ts';

/** APIServiceCondition is one entry of `status.conditions`. */
export interface APIServiceCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** localAvailableCondition is NewLocalAvailableAPIServiceCondition: local APIServices are always available. */
export function localAvailableCondition(now: number): APIServiceCondition {
  return { type: 'Available', status: 'True', lastTransitionTime: formatTime(now), reason: 'Local', message: 'Local APIServices are always available' };
}

/**
 * withCondition is SetAPIServiceCondition: the condition of the same type is replaced, keeping
 * its lastTransitionTime unless the status changed; a new type is appended.
 */
export function withCondition(conditions: readonly APIServiceCondition[], next: APIServiceCondition): APIServiceCondition[] {
  const index = conditions.findIndex((condition) => condition.type === next.type);
  if (index === -1) return [...conditions, next];
  const existing = conditions[index]!;
  const transition = existing.status === next.status ? existing.lastTransitionTime : next.lastTransitionTime;
  const merged: APIServiceCondition = {
    type: existing.type,
    status: next.status,
    ...(transition === undefined ? {} : { lastTransitionTime: transition }),
    ...(next.reason === undefined || next.reason === '' ? {} : { reason: next.reason }),
    ...(next.message === undefined || next.message === '' ? {} : { message: next.message }),
  };
  return conditions.map((condition, at) => (at === index ? merged : condition));
}

const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

function validate(apiService: BuiltinObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = recordAt(apiService, 'spec') ?? {};
  const group = typeof spec['group'] === 'string' ? spec['group'] : '';
  const version = typeof spec['version'] === 'string' ? spec['version'] : '';
  const name = apiService.metadata.name ?? '';
  const requiredName = `${version}.${group}`;
  // The name rule is path-segment (the generic metadata checks); a valid segment must still be version.group.
  if (name !== '' && isPathSegmentName(name).length === 0 && name !== requiredName) {
    errors.push(invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(requiredName)}`));
  }
  if (group === '' && version !== 'v1') errors.push(required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const problem of isDns1123Subdomain(group)) errors.push(invalid('spec.group', group, problem));
  for (const problem of isDns1035Label(version)) errors.push(invalid('spec.version', version, problem));
  const groupPriority = typeof spec['groupPriorityMinimum'] === 'number' ? spec['groupPriorityMinimum'] : 0;
  if (groupPriority <= 0 || groupPriority > 20000) errors.push(invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = typeof spec['versionPriority'] === 'number' ? spec['versionPriority'] : 0;
  if (versionPriority <= 0 || versionPriority > 1000) errors.push(invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = typeof spec['caBundle'] === 'string' ? Buffer.from(spec['caBundle'], 'base64').length : 0;
  const insecure = spec['insecureSkipTLSVerify'] === true;
  const service = recordAt(spec, 'service');
  if (service === undefined) {
    if (caBundle !== 0) errors.push(invalid('spec.caBundle', `${caBundle} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errors.push(invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
  } else {
    if (typeof service['namespace'] !== 'string' || service['namespace'] === '') errors.push(required('spec.service.namespace'));
    if (typeof service['name'] !== 'string' || service['name'] === '') errors.push(required('spec.service.name'));
    const port = typeof service['port'] === 'number' ? service['port'] : 0;
    if (port < 1 || port > 65535) errors.push(invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
    if (insecure && caBundle > 0) errors.push(invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  }
  // ValidateAPIServiceStatus (also what a /status write is held to).
  listOf(recordAt(apiService, 'status')?.['conditions']).forEach((condition, index) => {
    const status = condition['status'];
    if (!CONDITION_STATUSES.includes(String(status))) errors.push(notSupported(`status.conditions[${index}].status`, status ?? '', CONDITION_STATUSES));
  });
  return errors;
}

/** availableColumn is the table's Available cell: `True`, or the status with its reason, `Unknown` without the condition. */
function availableColumn(apiService: BuiltinObject): string {
  const condition = listOf(recordAt(apiService, 'status')?.['conditions']).find((entry) => entry['type'] === 'Available');
  if (condition === undefined) return 'Unknown';
  const status = String(condition['status'] ?? '');
  const reason = typeof condition['reason'] === 'string' ? condition['reason'] : '';
  return status === 'True' || reason === '' ? status : `${status} (${reason})`;
}

/** apiServiceBehaviour is APIService's part of the generic strategy. */
export const apiServiceBehaviour: KindBehaviour = {
  nameRule: 'path-segment',
  allowUnconditionalUpdate: false,
  prepareForCreate(apiService, request) {
    // The generic strategy has dropped the client's status; a local APIService is Available at once.
    if (recordAt(apiService, 'spec', 'service') === undefined) apiService['status'] = { conditions: [localAvailableCondition(request.now)] };
  },
  validate,
  tableColumns: [
    NAME_COLUMN,
    column('Service', 'The reference to the service that hosts this API endpoint.'),
    column('Available', 'Whether this service is available.'),
    AGE_COLUMN,
  ],
  tableRow(apiService, now) {
    const service = recordAt(apiService, 'spec', 'service');
    return [
      apiService.metadata.name ?? '',
      service === undefined ? 'Local' : `${String(service['namespace'] ?? '')}/${String(service['name'] ?? '')}`,
      availableColumn(apiService),
      ageSince(apiService.metadata.creationTimestamp, now),
    ];
  },
};
